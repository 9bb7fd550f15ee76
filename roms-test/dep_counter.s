; dep_counter.s - memory-dependence test program: the classic variable shared by the
; NMI handler and the main loop. The NMI handler counts frames in `frame_count`; the
; main loop spins until the count changes, then starts waiting again. Rendering stays
; off (black screen) and no input is read, so every run is the same.
;
; RAM this program touches (nothing else, apart from the stack page):
;   frame_count  $0000  1 byte
;
; Expected read-after-write dependences, derived from the code below (writer routine
; -> reader routine, "routine" = the nearest global label at or below the
; instruction; dep_counter.deps.ron has the same list):
;   reset -> main_loop  frame_count  no interrupt crossing  nca reset
;       reset clears frame_count; main_loop reads it from its first pass until the
;       first NMI (about a frame of spinning).
;   reset -> nmi        frame_count  crosses an interrupt   nca reset
;       the first NMI's `inc` reads the cleared value.
;   nmi   -> nmi        frame_count  no crossing (both NMI) nca reset
;       every later `inc` reads the previous NMI's value (read-modify-write).
;   nmi   -> main_loop  frame_count  crosses an interrupt   nca reset
;       main_loop's `lda`/`cmp` read what the last NMI wrote.
; Dead variables: none.
;
; Call tree: the reset vector enters the root frame, which holds `reset` and, by
; fall-through, `main_loop` (no JSR anywhere). Every NMI is a child frame of the
; root (it always interrupts `main_loop`, since the NMI is enabled only as reset
; falls into it). So the nearest common ancestor of every pair is the root frame,
; named `reset` after the entry it was started at. Two different NMIs are siblings:
; their common ancestor is the root too.
;
; What keeps the expectation independent of recorder choices:
; - No PHA/PLA/PHP/PLP: all $0100-$01FF traffic is implicit (the NMI's pushes,
;   RTI's pulls, their dummy stack reads), so it is the same whether or not the
;   recorder counts the stack.
; - No indexed addressing, so no dummy reads of RAM. `inc frame_count` is a
;   read-modify-write: read, dummy write of the old value, write of the new one.
;   Both writes are the NMI's, so the read-after-write pairs do not change whether
;   or not the dummy write is counted (a write-after-write tracker sees nmi -> nmi
;   within the one instruction if it counts it).
; - The PPU warm-up waits read only $2002; reset writes no RAM but frame_count.

.include "common/nes.inc"

.segment "HEADER"
    .byte "NES", $1A, 2, 1, $01, $00, 0, 0, 0, 0, 0, 0, 0, 0

.segment "CHARS"
    .incbin "common/tiles.chr"

.segment "VECTORS"
    .addr nmi, reset, irq

.segment "ZEROPAGE"
frame_count: .res 1             ; written by reset (clear) and nmi, read by nmi and main_loop

.segment "CODE"

reset:
    sei
    cld
    ldx #$40
    stx APUFRAME                ; no APU frame IRQ
    ldx #$FF
    txs
    inx                         ; X = 0
    stx PPUCTRL                 ; NMI off until the counter is cleared
    stx PPUMASK                 ; rendering off
    stx DMC_FREQ                ; no DMC IRQ
    bit PPUSTATUS               ; drop a stale vblank flag
@vbl1:
    bit PPUSTATUS               ; PPU warm-up: two vblanks
    bpl @vbl1
@vbl2:
    bit PPUSTATUS
    bpl @vbl2
    stx frame_count             ; WRITE frame_count (reset)
    lda #CTRL_NMI               ; the vblank flag was just read, so the first NMI
    sta PPUCTRL                 ; comes at the next vblank, a frame from now
    ; falls into main_loop

main_loop:
    lda frame_count             ; READ frame_count
@wait:
    cmp frame_count             ; READ frame_count, until the NMI has changed it
    beq @wait
    jmp main_loop

nmi:
    inc frame_count             ; READ then WRITE frame_count (nmi)
    rti

irq:                            ; never entered: IRQs stay masked (sei)
    rti
