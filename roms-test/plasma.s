; plasma.s - PLASMA: a software-rendered colour plasma, drawn into the nametable
; cell by cell while the palettes cycle.
;
; The field (32 x 22 tiles, rows 4-25) is rendered on the CPU: every tile is the
; average of four sub-samples, each a sum of four wave terms looked up in a
; 256-entry sine table, and the average picks one of four tiles (contour bands). Three background
; palettes with diagonal bands are rotated through a colour ramp every four frames.
; Title: P L A S M A over the running plasma (the effect changes every few passes),
; blinking PRESS START. Play: a 60-second show. A cycles the fourth wave term (the
; effect: WAVES, RINGS, DIAMOND, XOR), B cycles the colour ramp (FIRE, OCEAN,
; NEON, MONO), the d-pad moves the centre of the rings and diamonds. New settings
; show from the next pass. When the time is up: THE END, then the title.
;
; This is one of the busy workloads. Rendering runs in finish_frame while the CPU
; waits for the NMI, one tile per slice, into a 128-byte ring; each frame's fixed
; work moves what the ring holds into the VRAM queue (up to three row runs,
; limited by the queue's space) and queues the cycled palettes. So the CPU renders
; for the whole frame, as a real software renderer would, and a full pass over the
; field takes about a quarter of a second. Each pass starts by rebuilding the
; per-column and per-row wave tables and patching the RAM renderer.
;
; Control flow the profiler should see: RTS-trick state dispatch (run_state);
; self-modifying RAM code (sub_sample at $0600: the phase operand of an `adc #imm`
; and the target of a `jsr` to the effect's term are rewritten every pass); four
; term routines with absolute differences, a min/max swap and an octagonal
; distance; a four-corner loop per tile; a producer/consumer ring with row wraps
; (upload_cells); a palette loop with a ramp table.

.include "common/nes.inc"
.include "common/runtime.inc"

FIELD_ROW0 = 4                  ; nametable row of field row 0
FIELD_W    = 32                 ; tiles
FIELD_H    = 22
SUB_W      = FIELD_W * 2        ; sub-samples
SUB_H      = FIELD_H * 2
RING_MASK  = $7F                ; ring of 128 tiles
MAX_RUNS   = 3                  ; row runs queued per frame
SHOW_SECS  = 60

ST_TITLE_INIT = 0
ST_TITLE      = 1
ST_PLAY_INIT  = 2
ST_PLAY       = 3
ST_END        = 4

NUM_FX   = 4
NUM_RAMP = 4

HUD_PASSES = $01
HUD_TIME   = $02
HUD_FX     = $04
HUD_RAMP   = $08

.segment "ZEROPAGE"
state:      .res 1
fx:         .res 1              ; effect chosen with A
ramp:       .res 1              ; colour ramp chosen with B
pass_fx:    .res 1              ; the effect the current pass is drawn with
centre_x:   .res 1              ; sub-sample coordinates
centre_y:   .res 1
time_sec:   .res 1
tick:       .res 1
end_timer:  .res 1
hud_dirty:  .res 1
pass_done:  .res 1              ; set by the renderer at the end of each pass
passes:     .res 2
cycle:      .res 1              ; palette rotation
; renderer (background)
bg_phase:   .res 1              ; 0: build tables next, 1: render tiles
bg_col:     .res 1
bg_row:     .res 1
t1:         .res 1              ; wave phases, advanced once per pass
t2:         .res 1
t3:         .res 1
t4:         .res 1
sub_x:      .res 1
sub_y:      .res 1
sub_acc:    .res 1
cell_acc:   .res 1
corner:     .res 1
wave_acc:   .res 1
ring_head:  .res 1              ; written by the renderer
ring_tail:  .res 1              ; read by upload_cells
; upload (frame)
up_col:     .res 1
up_row:     .res 1
up_left:    .res 1
up_runs:    .res 1
run_len:    .res 1
tdx:        .res 1
tdy:        .res 1

.segment "BSS"
ring:   .res RING_MASK + 1
xa:     .res SUB_W              ; sine term of each sub-sample column
ya:     .res SUB_H              ; sine term of each sub-sample row

.segment "CODE"

main:
    lda #ST_TITLE_INIT
    sta state
main_loop:
    jsr read_pad
    jsr run_state
    jsr finish_frame
    jmp main_loop

; Like wait_nmi, but the wait renders tiles. The slices never touch OAM or the
; VRAM queue, which the NMI is about to read.
finish_frame:
    lda #1
    sta nmi_ready
@slice:
    jsr bg_slice
    lda nmi_ready
    bne @slice
    rts

; State dispatch with the RTS trick.
run_state:
    ldx state
    lda state_hi,x
    pha
    lda state_lo,x
    pha
    rts

state_lo: .lobytes title_init-1, title_run-1, play_init-1, play_run-1, end_run-1
state_hi: .hibytes title_init-1, title_run-1, play_init-1, play_run-1, end_run-1

; ---------------------------------------------------------------------------
; Screen setup

; Blank nametable; attribute bytes give the field diagonal bands of palettes 1-3
; (32 x 32 pixels each, one ramp step apart), the HUD rows palette 0.
draw_screen:
    lda #T_BLANK
    ldx #0
    jsr clear_nt
    lda #$23
    sta PPUADDR
    lda #$C8                    ; attribute row 1 (tile rows 4-7)
    sta PPUADDR
    ldy #1
@attr_row:
    ldx #0
@attr:
    stx tmp0
    tya
    clc
    adc tmp0                    ; band = (row + col) mod 3
@mod3:
    cmp #3
    bcc @band
    sbc #3
    jmp @mod3
@band:
    tax
    lda band_attr,x
    sta PPUDATA
    ldx tmp0
    inx
    cpx #8
    bne @attr
    iny
    cpy #7
    bne @attr_row
    rts

band_attr: .byte $55, $AA, $FF

; Restarts the renderer from the top of the field with an empty ring.
reset_renderer:
    lda #0
    sta bg_phase
    sta bg_col
    sta bg_row
    sta ring_head
    sta ring_tail
    sta up_col
    sta up_row
    sta passes
    sta passes+1
    lda #32
    sta centre_x
    lda #22
    sta centre_y
    rts

common_init:
    jsr ppu_off
    SET_PTR0 palette
    jsr load_palette
    jsr draw_screen
    jsr hide_sprites
    jsr reset_renderer
    PRINT_AT 10, 1, str_title
    PRINT_AT 3, 29, str_help
    rts

title_init:
    jsr common_init
    lda #ST_TITLE
    sta state
    jmp ppu_on

play_init:
    jsr common_init
    PRINT_AT 2, 2, str_passes
    PRINT_AT 22, 2, str_time
    PRINT_AT 2, 28, str_fx
    PRINT_AT 13, 28, str_colours
    lda #SHOW_SECS
    sta time_sec
    lda #60
    sta tick
    lda #HUD_PASSES | HUD_TIME | HUD_FX | HUD_RAMP
    sta hud_dirty
    lda #ST_PLAY
    sta state
    jmp ppu_on

; ---------------------------------------------------------------------------
; States. Each queues the palettes first, then HUD text, then as many rendered
; tiles as the queue has room for.

title_run:
    jsr queue_palettes
    ; attract: next effect every 8 passes, next ramp every 16
    lda pass_done
    beq @blink
    lda #0
    sta pass_done
    lda passes
    and #$07
    bne @blink
    inc fx
    lda fx
    cmp #NUM_FX
    bcc @fx_ok
    lda #0
    sta fx
@fx_ok:
    lda passes
    and #$0F
    bne @blink
    jsr next_ramp
@blink:
    lda frame
    and #$1F
    bne @check_start
    lda frame
    and #$20
    beq @show
    QUEUE_AT 10, 28, str_press_off
    jmp @check_start
@show:
    QUEUE_AT 10, 28, str_press
@check_start:
    jsr upload_cells
    lda pad_new
    and #BTN_START
    beq @done
    lda rng
    eor frame
    sta rng
    lda rng+1
    eor frame+1
    ora #$01
    sta rng+1
    lda #ST_PLAY_INIT
    sta state
@done:
    rts

play_run:
    jsr handle_input
    jsr queue_palettes
    jsr count_down
    jsr draw_hud
    jmp upload_cells

end_run:
    jsr queue_palettes
    jsr upload_cells
    dec end_timer
    beq @to_title
    lda end_timer
    cmp #150
    bcs @done
    lda pad_new
    and #BTN_START
    beq @done
@to_title:
    lda #ST_TITLE_INIT
    sta state
@done:
    rts

; ---------------------------------------------------------------------------
; Input

handle_input:
    lda pad_new
    and #BTN_A
    beq @no_a
    inc fx
    lda fx
    cmp #NUM_FX
    bcc @fx_ok
    lda #0
    sta fx
@fx_ok:
    lda hud_dirty
    ora #HUD_FX
    sta hud_dirty
@no_a:
    lda pad_new
    and #BTN_B
    beq @no_b
    jsr next_ramp
    lda hud_dirty
    ora #HUD_RAMP
    sta hud_dirty
@no_b:
    ; the d-pad moves the centre one sub-sample every other frame
    lda frame
    and #1
    bne @done
    lda pad
    and #BTN_LEFT
    beq @not_left
    lda centre_x
    beq @not_left
    dec centre_x
@not_left:
    lda pad
    and #BTN_RIGHT
    beq @not_right
    lda centre_x
    cmp #SUB_W - 1
    bcs @not_right
    inc centre_x
@not_right:
    lda pad
    and #BTN_UP
    beq @not_up
    lda centre_y
    beq @not_up
    dec centre_y
@not_up:
    lda pad
    and #BTN_DOWN
    beq @done
    lda centre_y
    cmp #SUB_H - 1
    bcs @done
    inc centre_y
@done:
    rts

next_ramp:
    inc ramp
    lda ramp
    cmp #NUM_RAMP
    bcc @ok
    lda #0
    sta ramp
@ok:
    rts

count_down:
    dec tick
    bne @done
    lda #60
    sta tick
    lda hud_dirty
    ora #HUD_TIME
    sta hud_dirty
    dec time_sec
    bne @done
    lda #ST_END
    sta state
    lda #210
    sta end_timer
    QUEUE_AT 12, 3, str_the_end
@done:
    rts

; ---------------------------------------------------------------------------
; Frame work

; Palettes 1-3 ($3F04-$3F0F, twelve bytes) from the current ramp, rotated one step
; every four frames: colour c of palette p is ramp[(cycle + 2c + p) mod 16], so
; neighbouring bands differ by one step of the ramp.
queue_palettes:
    lda frame
    and #3
    bne @queue
    inc cycle
@queue:
    lda #12
    ldx #$3F
    ldy #$04
    jsr vb_start
    lda ramp
    asl
    asl
    asl
    asl
    sta tmp2                    ; ramp * 16
    lda cycle
    sta tmp3
    ldy #3
@palette:
    lda #$0F
    jsr vb_put
    lda tmp3
    ldx #3
@colour:
    pha
    and #$0F
    ora tmp2
    stx tmp1
    tax
    lda ramps,x
    jsr vb_put
    ldx tmp1
    pla
    clc
    adc #2
    dex
    bne @colour
    inc tmp3
    dey
    bne @palette
    rts

; Moves rendered tiles from the ring into the VRAM queue in row runs, as many as
; the queue has room for (at most MAX_RUNS runs).
upload_cells:
    lda ring_head
    sec
    sbc ring_tail
    and #RING_MASK
    sta up_left
    lda #VBUF_SIZE - MAX_RUNS * 3
    sec
    sbc vb_len
    bcc @done
    cmp up_left
    bcs @fits
    sta up_left
@fits:
    lda #MAX_RUNS
    sta up_runs
@run:
    lda up_left
    beq @done
    dec up_runs
    bmi @done
    lda #FIELD_W
    sec
    sbc up_col
    cmp up_left
    bcc @len
    lda up_left
@len:
    sta run_len
    lda up_row
    clc
    adc #FIELD_ROW0
    tay
    lda up_col
    jsr nt_addr
    lda run_len
    jsr vb_start
    ldy run_len
    ldx ring_tail
@tile:
    lda ring,x
    jsr vb_put
    inx
    txa
    and #RING_MASK
    tax
    dey
    bne @tile
    stx ring_tail
    lda up_left
    sec
    sbc run_len
    sta up_left
    lda up_col
    clc
    adc run_len
    cmp #FIELD_W
    bcc @same_row
    inc up_row
    lda up_row
    cmp #FIELD_H
    bcc @row_ok
    lda #0
    sta up_row
@row_ok:
    lda #0
@same_row:
    sta up_col
    jmp @run
@done:
    rts

draw_hud:
    lda hud_dirty
    beq @done
    lsr
    bcc @no_passes
    lda passes
    sta num
    lda passes+1
    sta num+1
    jsr bin_to_dec
    NTXY 9, 2
    lda #5
    jsr vb_digits
@no_passes:
    lda hud_dirty
    and #HUD_TIME
    beq @no_time
    lda time_sec
    sta num
    lda #0
    sta num+1
    jsr bin_to_dec
    NTXY 27, 2
    lda #2
    jsr vb_digits
@no_time:
    lda hud_dirty
    and #HUD_FX
    beq @no_fx
    lda fx
    asl
    tax
    lda fx_names,x
    sta ptr0
    lda fx_names+1,x
    sta ptr0+1
    NTXY 5, 28
    jsr vb_print
@no_fx:
    lda hud_dirty
    and #HUD_RAMP
    beq @clean
    lda ramp
    asl
    tax
    lda ramp_names,x
    sta ptr0
    lda ramp_names+1,x
    sta ptr0+1
    NTXY 21, 28
    jsr vb_print
@clean:
    lda #0
    sta hud_dirty
@done:
    rts

; ---------------------------------------------------------------------------
; The renderer, run in slices while waiting for the NMI.

bg_slice:
    lda bg_phase
    bne @tile
    jmp start_pass
@tile:
    lda ring_head
    clc
    adc #1
    and #RING_MASK
    cmp ring_tail
    beq @full                   ; ring full: the upload is behind
    jsr render_tile
    ldx ring_head
    sta ring,x
    inx
    txa
    and #RING_MASK
    sta ring_head
    inc bg_col
    lda bg_col
    cmp #FIELD_W
    bcc @full
    lda #0
    sta bg_col
    inc bg_row
    lda bg_row
    cmp #FIELD_H
    bcc @full
    ; pass complete: move the waves on and rebuild the tables next slice
    lda #0
    sta bg_row
    sta bg_phase
    lda t1
    clc
    adc #7
    sta t1
    lda t2
    sec
    sbc #5
    sta t2
    lda t3
    clc
    adc #4
    sta t3
    lda t4
    clc
    adc #9
    sta t4
    inc pass_done
    inc passes
    bne :+
    inc passes+1
:   lda hud_dirty
    ora #HUD_PASSES
    sta hud_dirty
@full:
    rts

; New pass: tables of the column and row waves for the chosen effect's
; frequencies, then the RAM renderer is patched with the phase and the term.
start_pass:
    ldx fx
    stx pass_fx
    lda t1
    sta wave_acc
    ldy #0
@col:
    ldx wave_acc
    lda sine,x
    sta xa,y
    lda wave_acc
    ldx pass_fx
    clc
    adc fx_freq_x,x
    sta wave_acc
    iny
    cpy #SUB_W
    bne @col
    lda t2
    sta wave_acc
    ldy #0
@row:
    ldx wave_acc
    lda sine,x
    sta ya,y
    lda wave_acc
    ldx pass_fx
    clc
    adc fx_freq_y,x
    sta wave_acc
    iny
    cpy #SUB_H
    bne @row
    ldx pass_fx
    lda t3
    sta t3_op+1
    lda fx_term_lo,x
    sta term_call+1
    lda fx_term_hi,x
    sta term_call+2
    lda #1
    sta bg_phase
    rts

; Tile at (bg_col, bg_row): the average of its four sub-samples picks a tile. The
; value is cut into contour bands so that the small differences the averaged
; waves make show up as rings of colour.
render_tile:
    lda #0
    sta cell_acc
    lda #3
    sta corner
@corner:
    ldx corner
    lda bg_col
    asl
    ora corner_dx,x
    sta sub_x
    lda bg_row
    asl
    ora corner_dy,x
    sta sub_y
    jsr sub_sample
    lsr
    lsr
    clc
    adc cell_acc
    sta cell_acc
    dec corner
    bpl @corner
    lda cell_acc                ; contour bands: 16 steps of 16, colours 1-2-3-2
    lsr
    lsr
    lsr
    lsr
    and #3
    tax
    lda level_tiles,x
    rts

corner_dx: .byte 0, 1, 0, 1
corner_dy: .byte 0, 0, 1, 1
level_tiles: .byte T_SOLID1, T_SOLID2, T_SOLID3, T_SOLID2

; Effect terms, called from sub_sample: sub_x/sub_y in, A = 0-63 out.

; Diagonal wave: sine((x - y) * 3 + t4).
term_waves:
    lda sub_x
    sec
    sbc sub_y
    sta tmp0
    asl
    clc
    adc tmp0
    clc
    adc t4
    tax
    lda sine,x
    rts

; Rings round the centre: sine(d * 4 - t4), d = octagonal distance.
term_rings:
    jsr centre_deltas
    lda tdx
    cmp tdy
    bcs @ordered
    ldx tdy                     ; swap so that tdx is the larger
    sta tdy
    stx tdx
@ordered:
    lda tdy
    lsr
    clc
    adc tdx                     ; max + min / 2
    asl
    asl
    sec
    sbc t4
    tax
    lda sine,x
    rts

; Diamonds round the centre: sine((|dx| + |dy|) * 4 + t4), halved where the
; centre's row or column is crossed for a cross-shaped seam.
term_diamond:
    jsr centre_deltas
    lda tdx
    clc
    adc tdy
    asl
    asl
    clc
    adc t4
    tax
    lda sine,x
    ldx tdx
    beq @seam
    ldx tdy
    bne @done
@seam:
    lsr
@done:
    rts

; A moving XOR pattern: ((x + t4 / 4) xor y) * 2, folded into 0-63.
term_xor:
    lda t4
    lsr
    lsr
    clc
    adc sub_x
    eor sub_y
    asl
    and #$7F
    cmp #$40
    bcc @done
    eor #$7F                    ; fold 64-127 back down
@done:
    rts

; tdx = |sub_x - centre_x|, tdy = |sub_y - centre_y|.
centre_deltas:
    lda sub_x
    sec
    sbc centre_x
    bcs @dx
    eor #$FF
    adc #1
@dx:
    sta tdx
    lda sub_y
    sec
    sbc centre_y
    bcs @dy
    eor #$FF
    adc #1
@dy:
    sta tdy
    rts

.segment "RAMCODE"

; Runs at $0600. One sub-sample: column wave + row wave + a wave along x + y
; whose phase is the immediate operand of `t3_op`, + the effect's term, called
; through `term_call`. start_pass rewrites both operands at the start of every
; pass, so a new effect or phase never appears half-way down the screen.
sub_sample:
    ldx sub_x
    ldy sub_y
    lda xa,x
    clc
    adc ya,y
    sta sub_acc
    txa
    clc
    adc sub_y
    asl
t3_op:
    adc #$00                    ; patched: t3
    tax
    lda sine,x
    clc
    adc sub_acc
    sta sub_acc
term_call:
    jsr term_waves              ; patched: the effect's term
    clc
    adc sub_acc
    rts

.segment "RODATA"

palette:
    .byte $0F, $30, $10, $00,  $0F, $16, $27, $38
    .byte $0F, $11, $21, $31,  $0F, $14, $24, $34
    .byte $0F, $30, $10, $00,  $0F, $30, $10, $00
    .byte $0F, $30, $10, $00,  $0F, $30, $10, $00

; Four 16-colour ramps, indexed ramp * 16 + step.
ramps:
    .byte $06, $16, $26, $36, $27, $17, $07, $17, $28, $38, $28, $18, $08, $18, $26, $16
    .byte $01, $11, $21, $31, $2C, $1C, $0C, $1C, $2B, $3B, $2B, $1B, $0B, $1B, $21, $11
    .byte $14, $24, $34, $24, $13, $23, $33, $23, $15, $25, $35, $25, $12, $22, $32, $22
    .byte $00, $10, $20, $30, $3D, $2D, $00, $10, $20, $30, $20, $10, $00, $2D, $3D, $10

; Per effect: column and row wave frequencies, and the fourth term.
fx_freq_x:  .byte 5, 3, 2, 4
fx_freq_y:  .byte 3, 4, 6, 2
fx_term_lo: .lobytes term_waves, term_rings, term_diamond, term_xor
fx_term_hi: .hibytes term_waves, term_rings, term_diamond, term_xor

fx_names:   .addr name_waves, name_rings, name_diamond, name_xor
ramp_names: .addr name_fire, name_ocean, name_neon, name_mono
name_waves:   .byte "WAVES  ", 0
name_rings:   .byte "RINGS  ", 0
name_diamond: .byte "DIAMOND", 0
name_xor:     .byte "XOR    ", 0
name_fire:    .byte "FIRE ", 0
name_ocean:   .byte "OCEAN", 0
name_neon:    .byte "NEON ", 0
name_mono:    .byte "MONO ", 0

str_title:     .byte "P L A S M A", 0
str_press:     .byte "PRESS START", 0
str_press_off: .byte "           ", 0
str_help:      .byte "A:FX B:COLOURS PAD:CENTRE", 0
str_passes:    .byte "PASSES", 0
str_time:      .byte "TIME", 0
str_fx:        .byte "FX", 0
str_colours:   .byte "COLOURS", 0
str_the_end:   .byte "THE END", 0

; sine(i * 2 pi / 256) scaled to 0-63, four of them add up to at most 252.
sine:
    .byte 32, 32, 33, 34, 35, 35, 36, 37, 38, 38, 39, 40, 41, 41, 42, 43
    .byte 44, 44, 45, 46, 46, 47, 48, 48, 49, 50, 50, 51, 51, 52, 53, 53
    .byte 54, 54, 55, 55, 56, 56, 57, 57, 58, 58, 59, 59, 59, 60, 60, 60
    .byte 61, 61, 61, 61, 62, 62, 62, 62, 62, 63, 63, 63, 63, 63, 63, 63
    .byte 63, 63, 63, 63, 63, 63, 63, 63, 62, 62, 62, 62, 62, 61, 61, 61
    .byte 61, 60, 60, 60, 59, 59, 59, 58, 58, 57, 57, 56, 56, 55, 55, 54
    .byte 54, 53, 53, 52, 51, 51, 50, 50, 49, 48, 48, 47, 46, 46, 45, 44
    .byte 44, 43, 42, 41, 41, 40, 39, 38, 38, 37, 36, 35, 35, 34, 33, 32
    .byte 32, 31, 30, 29, 28, 28, 27, 26, 25, 25, 24, 23, 22, 22, 21, 20
    .byte 19, 19, 18, 17, 17, 16, 15, 15, 14, 13, 13, 12, 12, 11, 10, 10
    .byte  9,  9,  8,  8,  7,  7,  6,  6,  5,  5,  4,  4,  4,  3,  3,  3
    .byte  2,  2,  2,  2,  1,  1,  1,  1,  1,  0,  0,  0,  0,  0,  0,  0
    .byte  0,  0,  0,  0,  0,  0,  0,  0,  1,  1,  1,  1,  1,  2,  2,  2
    .byte  2,  3,  3,  3,  4,  4,  4,  5,  5,  6,  6,  7,  7,  8,  8,  9
    .byte  9, 10, 10, 11, 12, 12, 13, 13, 14, 15, 15, 16, 17, 17, 18, 19
    .byte 19, 20, 21, 22, 22, 23, 24, 25, 25, 26, 27, 28, 28, 29, 30, 31
