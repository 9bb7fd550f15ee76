; frametime.s - the frame-time profile's hand-counted test program (issue 43;
; tests/frame_time.rs). Every routine is an ld65 .proc, so the profile's routines
; are these scopes. Once a frame the main loop, woken by the NMI, runs:
;
;   jsr work          a plain call
;   jsr dispatch      pushes by_rts-1 and returns to it: the RTS trick (by_rts is
;                     reached by no JSR and no JMP)
;   jsr caller_tail   which ends with `jmp tail_target`: a tail call (tail_target is
;                     reached by no JSR)
;   then waits in `wait_nmi`, an idle loop: `lda nmi_flag / beq` until the NMI
;   handler sets the flag.
;
; Cycles per call, counted from the 6502's tables (no page crossings: the code is
; at $8000 and its branches stay in the page); a routine's call begins after the
; JSR that enters it (the JSR's 6 cycles are the caller's) and ends with its own
; RTS (whose 6 cycles are its own):
;   work         ldx #10 (2), 10 x dex (2), 9 x bne taken (3) + 1 not (2),
;                rts (6)                                     = 2+20+29+6 = 57
;   dispatch     lda #, pha, lda #, pha (2+3+2+3), rts (6)    = 16 exclusive
;   by_rts       ldy #5 (2), 5 x dey (2), 4 x bne taken (3) + 1 not (2),
;                rts (6)                                     = 2+10+14+6 = 32
;   caller_tail  lda # (2), sta zp (3), jmp abs (3)          = 8 exclusive
;   tail_target  ldx #3 (2), 3 x dex (2), 2 x bne taken (3) + 1 not (2),
;                rts (6)                                     = 2+6+8+6 = 22
;   nmi          the interrupt's entry (7), inc zp (5), rti (6) = 18
; The RTS of `dispatch` closes no call (the stack still holds main's return
; address below the pushed one): it dispatches to by_rts, which is then an
; activation of its own, and its RTS returns to main. caller_tail's activation is
; replaced by tail_target's at the JMP, and tail_target's RTS returns to main.
; An iteration of wait_nmi is lda zp (3) + beq taken (3) = 6 cycles.
;
; Rendering stays off and no input is read, so every frame is the same and lags.

.include "common/nes.inc"

.segment "HEADER"
    .byte "NES", $1A, 2, 1, $01, $00, 0, 0, 0, 0, 0, 0, 0, 0

.segment "CHARS"
    .incbin "common/tiles.chr"

.segment "VECTORS"
    .addr nmi, reset, irq

.segment "ZEROPAGE"
nmi_flag: .res 1
scratch:  .res 1

.segment "CODE"

.proc reset
    sei
    cld
    ldx #$40
    stx APUFRAME
    ldx #$FF
    txs
    inx
    stx PPUCTRL
    stx PPUMASK
    stx DMC_FREQ
    bit PPUSTATUS
vbl1:
    bit PPUSTATUS
    bpl vbl1
vbl2:
    bit PPUSTATUS
    bpl vbl2
    stx nmi_flag
    lda #CTRL_NMI
    sta PPUCTRL
loop:
    jsr wait_nmi
    jsr work
    jsr dispatch
    jsr caller_tail
    jmp loop
.endproc

.proc wait_nmi
    lda #0
    sta nmi_flag
wait:
    lda nmi_flag
    beq wait
    rts
.endproc

.proc work
    ldx #10
again:
    dex
    bne again
    rts
.endproc

.proc dispatch
    lda #>(by_rts - 1)
    pha
    lda #<(by_rts - 1)
    pha
    rts
.endproc

.proc by_rts
    ldy #5
again:
    dey
    bne again
    rts
.endproc

.proc caller_tail
    lda #1
    sta scratch
    jmp tail_target
.endproc

.proc tail_target
    ldx #3
again:
    dex
    bne again
    rts
.endproc

.proc nmi
    inc nmi_flag
    rti
.endproc

.proc irq
    rti
.endproc
