; cfgdemo.s - the smallest roms-test program: a reference whose exact control-flow
; graph can be derived by hand. The screen is one flat colour (rendering stays off)
; that steps through eight shades, one step every 30 frames. No input is read.
;
; Basic blocks (a label marks each block's first instruction; see cfgdemo.lbl or
; README.md for addresses). Edges:
;   RESET  -> MAIN                      fall through
;   MAIN   -> INNER                     fall through
;   INNER  -> INNER | CALL              bne taken (15 of 16 passes) | not taken
;   CALL   -> SUB                       jsr
;   SUB    -> TEST                      rts (returns to the instruction after the jsr)
;   TEST   -> JOIN | THEN               bcc taken (ticks < 30) | not taken
;   THEN   -> JOIN                      fall through
;   JOIN   -> MAIN                      jmp
;   NMI    -> (interrupted block)       rti; entered from any block, once per frame
;   IRQ                                 never entered: interrupts stay masked (sei)
;
; Why the PPU warm-up is handled without wait loops: writes to $2000 are ignored for
; about two frames after power-on, so MAIN re-arms the NMI on every pass instead.
; Once the PPU accepts the write, NMIs start; until then the loop just spins. That
; keeps the demo to a single loop besides the main one.

PPUCTRL = $2000
PPUADDR = $2006
PPUDATA = $2007

.segment "HEADER"
    .byte "NES", $1A, 2, 1, $01, $00, 0, 0, 0, 0, 0, 0, 0, 0

.segment "CHARS"
    .incbin "common/tiles.chr"

.segment "VECTORS"
    .addr nmi, reset, irq

.segment "ZEROPAGE"
spins:  .res 1                  ; bumped by INNER; only there to give the loop work
ticks:  .res 1                  ; frames since the last colour step (NMI counts)
colour: .res 1                  ; how many colour steps so far
shade:  .res 1                  ; palette value the NMI shows

.segment "CODE"

reset:                          ; RESET: entry from the reset vector
    sei
    cld
    ldx #$FF
    txs
    lda #0
    sta spins
    sta ticks
    sta colour
    sta shade

main_loop:                      ; MAIN: top of the endless main loop
    lda #$80
    sta PPUCTRL                 ; NMI on (see the warm-up note above)
    ldx #16

inner:                          ; INNER: counted loop, 16 passes per main pass
    inc spins
    dex
    bne inner

call:                           ; CALL: the subroutine call
    jsr pick_shade

test:                           ; TEST: return point of the call; the conditional
    lda ticks
    cmp #30
    bcc join

then:                           ; THEN: every 30 frames, step the colour
    lda #0
    sta ticks
    inc colour

join:                           ; JOIN: back to the top
    jmp main_loop

pick_shade:                     ; SUB: shade = shades[colour mod 8]
    lda colour
    and #7
    tax
    lda shades,x
    sta shade
    rts

nmi:                            ; NMI: show the shade as the backdrop colour
    pha
    txa
    pha
    lda #$3F
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda shade
    sta PPUDATA
    ; Point the PPU away from the palette: with rendering off it displays the
    ; palette entry the address points at, and we want entry 0.
    lda #$00
    sta PPUADDR
    sta PPUADDR
    inc ticks
    pla
    tax
    pla
    rti

irq:                            ; IRQ: unreachable (sei in RESET)
    rti

shades:
    .byte $11, $16, $1A, $27, $28, $21, $24, $2C
