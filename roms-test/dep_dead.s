; dep_dead.s - memory-dependence test program: a dead store next to a live one.
; The main loop calls `produce`, which stores a value into `live_var` and another
; into `dead_var`, then `use`, which reads `live_var` back and checks it (a wrong
; value would stop the program in `halt`, which never happens). Nothing ever reads
; `dead_var`. The NMI is enabled but its handler is a bare RTI. Rendering stays off
; (black screen) and no input is read, so every run is the same.
;
; RAM this program touches (nothing else, apart from the stack page):
;   live_var  $0000  1 byte
;   dead_var  $0001  1 byte
;
; Expected read-after-write dependences, derived from the code below (writer routine
; -> reader routine, "routine" = the nearest global label at or below the
; instruction; dep_dead.deps.ron has the same list):
;   produce -> use  live_var  no interrupt crossing  nca reset
; Dead variables: dead_var (written by produce on every pass, never read).
;
; Reset writes no RAM: live_var is written before it is first read, and dead_var is
; never read, so no read ever sees power-up RAM.
;
; Call tree: the reset vector enters the root frame, which holds `reset` and, by
; fall-through, `main_loop`; main_loop calls `produce` and `use` (JSR). Their frames
; are siblings under the root, so the nearest common ancestor is the root frame,
; named `reset` after its entry (unlike dep_buffer, where main has a frame of its
; own). The NMI handler reads and writes no RAM.
;
; What keeps the expectation independent of recorder choices:
; - No PHA/PLA/PHP/PLP: all $0100-$01FF traffic is implicit (JSR/RTS, the NMI's
;   pushes and RTI's pulls, their dummy stack reads).
; - No indexed addressing and no read-modify-write, so no dummy reads or dummy
;   writes of RAM.

.include "common/nes.inc"

LIVE_VALUE = $5A
DEAD_VALUE = $A5

.segment "HEADER"
    .byte "NES", $1A, 2, 1, $01, $00, 0, 0, 0, 0, 0, 0, 0, 0

.segment "CHARS"
    .incbin "common/tiles.chr"

.segment "VECTORS"
    .addr nmi, reset, irq

.segment "ZEROPAGE"
live_var: .res 1                ; written by produce, read by use
dead_var: .res 1                ; written by produce, never read

.segment "CODE"

reset:
    sei
    cld
    ldx #$40
    stx APUFRAME                ; no APU frame IRQ
    ldx #$FF
    txs
    inx                         ; X = 0
    stx PPUCTRL                 ; NMI off during warm-up
    stx PPUMASK                 ; rendering off
    stx DMC_FREQ                ; no DMC IRQ
    bit PPUSTATUS               ; drop a stale vblank flag
@vbl1:
    bit PPUSTATUS               ; PPU warm-up: two vblanks
    bpl @vbl1
@vbl2:
    bit PPUSTATUS
    bpl @vbl2
    lda #CTRL_NMI
    sta PPUCTRL                 ; NMI on from the next vblank
    ; falls into main_loop

main_loop:
    jsr produce
    jsr use
    jmp main_loop

produce:
    lda #LIVE_VALUE
    sta live_var                ; WRITE live_var
    lda #DEAD_VALUE
    sta dead_var                ; WRITE dead_var: the dead store
    rts

use:
    lda live_var                ; READ live_var
    cmp #LIVE_VALUE
    bne halt
    rts

halt:                           ; never reached: live_var always holds LIVE_VALUE
    jmp halt

nmi:                            ; enabled, but touches no RAM
    rti

irq:                            ; never entered: IRQs stay masked (sei)
    rti
