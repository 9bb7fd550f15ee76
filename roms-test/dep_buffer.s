; dep_buffer.s - memory-dependence test program: a buffer filled by one routine and
; consumed by another. `main` calls `fill`, which writes 16 bytes into `buffer`, then
; `consume`, which sums the 16 bytes into `result`; `main` then reads `result` and
; checks it (1 + 2 + ... + 16 = 136; a wrong sum would stop the program in `halt`,
; which never happens). The NMI is enabled but its handler is a bare RTI. Rendering
; stays off (black screen) and no input is read, so every run is the same.
;
; RAM this program touches (nothing else, apart from the stack page):
;   buffer  $0300-$030F  16 bytes
;   result  $0310         1 byte
;
; Expected read-after-write dependences, derived from the code below (writer routine
; -> reader routine, "routine" = the nearest global label at or below the
; instruction; dep_buffer.deps.ron has the same list):
;   fill    -> consume  buffer (all 16 bytes)  no interrupt crossing  nca main
;   consume -> main     result                 no interrupt crossing  nca main
; Dead variables: none (result is read by main).
;
; Reset writes no RAM: every byte is written before it is first read (fill runs
; before the first consume, consume before main's first read of result), so no
; read ever sees power-up RAM and there is no reset -> X dependence.
;
; Call tree: root frame `reset` (the reset vector) -> `main` (JSR, never returns)
; -> `fill` and `consume` (JSR from main, one after the other). fill's and consume's
; frames are siblings, so their nearest common ancestor is `main`; consume -> main
; has the reader's own frame, `main`, as the ancestor. NMIs interrupt whichever of
; main/fill/consume runs, but the handler reads and writes no RAM, so no dependence
; involves an NMI and none crosses an interrupt.
;
; What keeps the expectation independent of recorder choices:
; - No PHA/PLA/PHP/PLP: all $0100-$01FF traffic is implicit (JSR/RTS, the NMI's
;   pushes and RTI's pulls, their dummy stack reads).
; - No indexed stores and no zero-page indexing, so no dummy reads of RAM: fill is
;   unrolled into 16 absolute stores, and consume reads with `adc buffer,x`
;   (absolute,X), which makes no dummy read because buffer does not cross a page.

.include "common/nes.inc"

BUF_LEN = 16
SUM = BUF_LEN * (BUF_LEN + 1) / 2   ; fill stores 1..16

.segment "HEADER"
    .byte "NES", $1A, 2, 1, $01, $00, 0, 0, 0, 0, 0, 0, 0, 0

.segment "CHARS"
    .incbin "common/tiles.chr"

.segment "VECTORS"
    .addr nmi, reset, irq

.segment "BSS"
buffer: .res BUF_LEN            ; written by fill, read by consume
result: .res 1                  ; written by consume, read by main

.assert >buffer = >(buffer + BUF_LEN - 1), error, "buffer must not cross a page"

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
    jsr main                    ; a frame of its own, so it is fill's and consume's ancestor

main:
    jsr fill
    jsr consume
    lda result                  ; READ result
    cmp #SUM
    bne halt
    jmp main

halt:                           ; never reached: the sum is always right
    jmp halt

fill:
.repeat BUF_LEN, I
    lda #I + 1
    sta buffer + I              ; WRITE buffer[I] (absolute, no dummy read)
.endrepeat
    rts

consume:
    lda #0
    ldx #BUF_LEN - 1
@loop:
    clc
    adc buffer,x                ; READ buffer[X]
    dex
    bpl @loop
    sta result                  ; WRITE result
    rts

nmi:                            ; enabled, but touches no RAM
    rti

irq:                            ; never entered: IRQs stay masked (sei)
    rti
