; snake.s - SNAKE: steer a growing snake round a walled field to eat apples.
;
; Title: a "SNAKE" logo drawn in body tiles, blinking PRESS START, a sprite snake
; crawling along the bottom. Play: d-pad steers (no reversing), A held = dash,
; B = cycle the snake's colour (palette write through the VRAM queue). The apple
; wanders to a new spot when its bonus timer runs out, so the game moves without
; input; hitting a wall or yourself ends the game, and GAME OVER returns to the title.
;
; Control flow the profiler should see: an RTS-trick state dispatch (run_state), a
; JMP (indirect) table for the four moves (move_head), nested loops (logo drawing,
; bin_to_dec), rejection-sampling retry loop (place_food), mul8/div8 from the
; runtime, and RAM code at $0600 (RAMCODE) that rewrites its own opcode and operand
; on every call: occ_write turns one instruction into ORA #mask or AND #~mask.

.include "common/nes.inc"
.include "common/runtime.inc"

GRID_W    = 30                  ; play cells, columns 1..30 of the nametable
GRID_H    = 22                  ; rows 5..26
GRID_COL0 = 1
GRID_ROW0 = 5
RING_MASK = $7F                 ; body ring buffer holds 128 cells
MAX_LEN   = 120

ST_TITLE_INIT = 0
ST_TITLE      = 1
ST_PLAY_INIT  = 2
ST_PLAY       = 3
ST_OVER       = 4

OP_ORA_IMM = $09
OP_AND_IMM = $29

.segment "ZEROPAGE"
state:      .res 1
dir:        .res 1              ; 0 up, 1 right, 2 down, 3 left
next_dir:   .res 1
head_i:     .res 1
tail_i:     .res 1
length:     .res 1
new_x:      .res 1
new_y:      .res 1
food_x:     .res 1
food_y:     .res 1
ate:        .res 1
move_timer: .res 1
bonus:      .res 1
bonus_tick: .res 1
score:      .res 2
best:       .res 2
over_timer: .res 1
colour_i:   .res 1
hud_dirty:  .res 1
occ_t:      .res 1
occ_byte:   .res 1
seg_i:      .res 1

.segment "BSS"
occ_map:    .res GRID_H * 4     ; one bit per cell, 4 bytes per row
body_x:     .res 128
body_y:     .res 128

.segment "CODE"

main:
    lda #ST_TITLE_INIT
    sta state
main_loop:
    jsr read_pad
    jsr run_state
    jsr wait_nmi
    jmp main_loop

; State dispatch by the RTS trick: push the handler's address minus one and
; "return" into it; the handler's own RTS then returns to main_loop.
run_state:
    lda state
    asl
    tax
    lda state_handlers+1,x
    pha
    lda state_handlers,x
    pha
    rts

state_handlers:
    .addr title_init-1, title_run-1, play_init-1, play_run-1, over_run-1

; ---------------------------------------------------------------------------
; Title screen

title_init:
    jsr ppu_off
    lda #T_BLANK
    ldx #0
    jsr clear_nt
    SET_PTR0 palette
    jsr load_palette
    jsr draw_logo
    PRINT_AT 9, 13, str_tagline
    PRINT_AT 10, 20, str_help1
    PRINT_AT 6, 21, str_help2
    PRINT_AT 10, 24, str_best
    lda best
    sta num
    lda best+1
    sta num+1
    jsr bin_to_dec
    ldx #0
@digit:
    lda digits,x
    sta PPUDATA                 ; continues right after "BEST "
    inx
    cpx #5
    bne @digit
    jsr hide_sprites
    lda #ST_TITLE
    sta state
    jmp ppu_on

; Logo rows are strings where '#' becomes a body tile.
draw_logo:
    lda #0
    sta seg_i
@row:
    lda seg_i
    clc
    adc #5
    tay
    lda #4
    jsr nt_addr
    stx PPUADDR
    sty PPUADDR
    lda seg_i
    asl
    tax
    lda logo_rows,x
    sta ptr0
    lda logo_rows+1,x
    sta ptr0+1
    ldy #0
@col:
    lda (ptr0),y
    beq @next_row
    cmp #'#'
    bne @blank
    lda #T_BODY
    bne @put
@blank:
    lda #T_BLANK
@put:
    sta PPUDATA
    iny
    bne @col
@next_row:
    inc seg_i
    lda seg_i
    cmp #5
    bne @row
    rts

title_run:
    lda frame
    and #$1F
    bne @blink_done
    lda frame
    and #$20
    bne @hide
    QUEUE_AT 10, 17, str_press
    jmp @blink_done
@hide:
    QUEUE_AT 10, 17, str_press_off
@blink_done:
    jsr title_crawler
    lda pad_new
    and #BTN_START
    beq @stay
    ; The moment Start is pressed seeds the game, so different recordings differ.
    lda rng
    eor frame
    sta rng
    lda rng+1
    eor frame+1
    ora #$01                    ; an all-zero LFSR would stay zero
    sta rng+1
    lda #ST_PLAY_INIT
    sta state
@stay:
    rts

; Five sprites wriggling left to right along the bottom of the title.
title_crawler:
    ldx #0
    ldy #0
@seg:
    sty seg_i
    tya
    asl
    sta tmp0
    asl
    asl
    adc tmp0                    ; seg * 10
    sta tmp0
    lda frame
    sec
    sbc tmp0
    sta oam+3,x
    lsr
    lsr
    lsr
    and #$0F
    tay
    lda wave,y
    clc
    adc #212
    sta oam,x
    ldy seg_i
    bne @body
    lda #T_HEAD
    bne @tile
@body:
    lda #T_BODY
@tile:
    sta oam+1,x
    lda #0
    sta oam+2,x
    inx
    inx
    inx
    inx
    iny
    cpy #5
    bne @seg
    rts

; ---------------------------------------------------------------------------
; Starting a game

play_init:
    jsr ppu_off
    lda #T_BLANK
    ldx #0
    jsr clear_nt
    jsr draw_walls
    PRINT_AT 1, 2, str_score
    PRINT_AT 13, 2, str_best
    PRINT_AT 24, 2, str_len
    PRINT_AT 1, 28, str_bonus
    PRINT_AT 12, 28, str_keys
    jsr hide_sprites

    ldx #GRID_H * 4 - 1
    lda #0
@clear_occ:
    sta occ_map,x
    dex
    bpl @clear_occ

    lda #0
    sta score
    sta score+1
    sta tail_i
    sta seg_i
@seg:
    ldx seg_i
    txa
    clc
    adc #4
    sta body_x,x
    lda #11
    sta body_y,x
    ldy #11
    lda body_x,x
    tax
    jsr occ_set
    ldx seg_i
    lda body_x,x
    clc
    adc #GRID_COL0
    ldy #11 + GRID_ROW0
    jsr nt_addr
    stx PPUADDR
    sty PPUADDR
    lda seg_i
    cmp #2
    beq @head
    lda #T_BODY
    bne @draw
@head:
    lda #T_HEAD
@draw:
    sta PPUDATA
    inc seg_i
    lda seg_i
    cmp #3
    bne @seg

    lda #2
    sta head_i
    lda #3
    sta length
    lda #1
    sta dir
    sta next_dir
    lda #99
    sta bonus
    lda #8
    sta bonus_tick
    lda #30
    sta move_timer              ; a breath before the snake starts moving
    lda #1
    sta hud_dirty
    jsr place_food
    jsr apply_colour
    lda #ST_PLAY
    sta state
    jmp ppu_on

; Walls round the field: two rows, then two columns written with +32 increment.
draw_walls:
    SET_VADDR 0, 4
    ldx #32
    lda #T_WALL
@top:
    sta PPUDATA
    dex
    bne @top
    SET_VADDR 0, 27
    ldx #32
@bottom:
    sta PPUDATA
    dex
    bne @bottom
    lda #CTRL_NMI | $04
    sta PPUCTRL
    ldy #0
@side:
    lda #>($2000 + 5 * 32)
    sta PPUADDR
    lda side_lo,y
    sta PPUADDR
    ldx #GRID_H
    lda #T_WALL
@down:
    sta PPUDATA
    dex
    bne @down
    iny
    cpy #2
    bne @side
    lda #CTRL_NMI
    sta PPUCTRL
    rts

side_lo:
    .byte <($2000 + 5 * 32), <($2000 + 5 * 32 + 31)

; ---------------------------------------------------------------------------
; Playing

play_run:
    jsr handle_input
    jsr update_bonus
    jsr draw_food
    dec move_timer
    bne @no_step
    jsr compute_delay
    jsr snake_step
@no_step:
    lda state
    cmp #ST_PLAY
    bne @done                   ; the step ended the game
    lda hud_dirty
    beq @done
    jsr draw_hud
@done:
    rts

handle_input:
    lda pad
    and #BTN_UP
    beq @not_up
    lda #0
    beq @want
@not_up:
    lda pad
    and #BTN_DOWN
    beq @not_down
    lda #2
    bne @want
@not_down:
    lda pad
    and #BTN_LEFT
    beq @not_left
    lda #3
    bne @want
@not_left:
    lda pad
    and #BTN_RIGHT
    beq @buttons
    lda #1
@want:
    tax
    eor dir
    cmp #2
    beq @buttons                ; turning straight back is not allowed
    stx next_dir
@buttons:
    lda pad_new
    and #BTN_B
    beq @done
    inc colour_i
    jmp apply_colour
@done:
    rts

; Rewrites background colour 2 (the snake) with the selected colour.
apply_colour:
    lda colour_i
    and #3
    tax
    lda snake_colours,x
    pha
    lda #1
    ldx #$3F
    ldy #$02
    jsr vb_start
    pla
    jmp vb_put

; Frames until the next step: slower when short, dash while A is held.
compute_delay:
    lda pad
    and #BTN_A
    beq @normal
    lda #2
    bne @store
@normal:
    lda length
    lsr
    lsr
    lsr
    sta tmp0
    lda #9
    sec
    sbc tmp0
    bmi @floor
    cmp #4
    bcs @store
@floor:
    lda #4
@store:
    sta move_timer
    rts

; The apple's bonus counts down; at zero the apple moves somewhere else.
update_bonus:
    dec bonus_tick
    bne @done
    lda #8
    sta bonus_tick
    inc hud_dirty
    dec bonus
    bne @done
    lda #99
    sta bonus
    jsr place_food
@done:
    rts

snake_step:
    lda next_dir
    sta dir
    ldx head_i
    lda body_x,x
    sta new_x
    lda body_y,x
    sta new_y
    jsr move_head
    lda new_x                   ; -1 wraps to $FF, so one unsigned test per axis
    cmp #GRID_W
    bcs @die
    lda new_y
    cmp #GRID_H
    bcs @die
    lda #0
    sta ate
    lda new_x
    cmp food_x
    bne @no_food
    lda new_y
    cmp food_y
    bne @no_food
    inc ate
    lda length
    cmp #MAX_LEN
    bcc @check_body             ; grow: the tail stays
@no_food:
    jsr drop_tail
@check_body:
    ldx new_x
    ldy new_y
    jsr occ_test
    bne @die
    jsr grow_head
    inc hud_dirty
    lda ate
    beq @done
    jsr eat_food
@done:
    rts
@die:
    jmp start_game_over

; One cell in the current direction, through a table of handlers (JMP indirect).
move_head:
    lda dir
    asl
    tax
    lda move_handlers,x
    sta ptr1
    lda move_handlers+1,x
    sta ptr1+1
    jmp (ptr1)

move_handlers:
    .addr go_up, go_right, go_down, go_left

go_up:
    dec new_y
    rts
go_right:
    inc new_x
    rts
go_down:
    inc new_y
    rts
go_left:
    dec new_x
    rts

drop_tail:
    ldx tail_i
    lda body_y,x
    tay
    lda body_x,x
    tax
    jsr occ_clear
    ldx tail_i
    lda body_x,x
    clc
    adc #GRID_COL0
    sta tmp2
    lda body_y,x
    clc
    adc #GRID_ROW0
    sta tmp3
    lda #T_BLANK
    jsr vb_tile_at
    lda tail_i
    clc
    adc #1
    and #RING_MASK
    sta tail_i
    dec length
    rts

grow_head:
    ldx head_i
    lda body_x,x
    clc
    adc #GRID_COL0
    sta tmp2
    lda body_y,x
    clc
    adc #GRID_ROW0
    sta tmp3
    lda #T_BODY
    jsr vb_tile_at
    lda head_i
    clc
    adc #1
    and #RING_MASK
    sta head_i
    tax
    lda new_x
    sta body_x,x
    lda new_y
    sta body_y,x
    inc length
    ldx new_x
    ldy new_y
    jsr occ_set
    lda new_x
    clc
    adc #GRID_COL0
    sta tmp2
    lda new_y
    clc
    adc #GRID_ROW0
    sta tmp3
    lda #T_HEAD
    jmp vb_tile_at

; Points = (bonus / 16 + 1) * 5, then a fresh apple with a full bonus.
eat_food:
    lda bonus
    lsr
    lsr
    lsr
    lsr
    clc
    adc #1
    ldy #5
    jsr mul8
    sta tmp0
    lda score
    clc
    adc mul_a
    sta score
    lda score+1
    adc tmp0
    sta score+1
    lda #99
    sta bonus
    lda #8
    sta bonus_tick
    ; falls into place_food

; Random free cell: draw until one is not occupied.
place_food:
    ldy #GRID_W
    jsr rand_below
    sta food_x
    ldy #GRID_H
    jsr rand_below
    sta food_y
    ldx food_x
    ldy food_y
    jsr occ_test
    bne place_food
    rts

; Apple sprite plus two sparkles circling it.
draw_food:
    lda food_y
    clc
    adc #GRID_ROW0
    asl
    asl
    asl
    sta tmp0
    sbc #0                      ; carry is clear: one line up, as sprites are drawn
    sta oam+0
    lda #T_APPLE
    sta oam+1
    lda #1
    sta oam+2
    lda food_x
    clc
    adc #GRID_COL0
    asl
    asl
    asl
    sta tmp1
    sta oam+3
    lda frame
    lsr
    and #$0F
    tax
    ldy #4
    jsr place_sparkle
    txa
    clc
    adc #8
    and #$0F
    tax
    ldy #8
    ; falls into place_sparkle

; Sparkle sprite at OAM offset Y, position tmp1/tmp0 plus circle offset X.
place_sparkle:
    lda tmp0
    clc
    adc circle_y,x
    sta oam,y
    lda #T_SPARK
    sta oam+1,y
    lda #2
    sta oam+2,y
    lda tmp1
    clc
    adc circle_x,x
    sta oam+3,y
    rts

draw_hud:
    lda #0
    sta hud_dirty
    lda score
    sta num
    lda score+1
    sta num+1
    jsr bin_to_dec
    NTXY 7, 2
    lda #5
    jsr vb_digits
    lda best
    sta num
    lda best+1
    sta num+1
    jsr bin_to_dec
    NTXY 18, 2
    lda #5
    jsr vb_digits
    lda length
    sta num
    lda #0
    sta num+1
    jsr bin_to_dec
    NTXY 28, 2
    lda #3
    jsr vb_digits
    lda bonus
    sta num
    lda #0
    sta num+1
    jsr bin_to_dec
    NTXY 7, 28
    lda #2
    jmp vb_digits

; ---------------------------------------------------------------------------
; Game over

start_game_over:
    lda #ST_OVER
    sta state
    lda #180
    sta over_timer
    lda score+1
    cmp best+1
    bcc @show
    bne @record
    lda score
    cmp best
    bcc @show
@record:
    lda score
    sta best
    lda score+1
    sta best+1
@show:
    QUEUE_AT 10, 15, str_game_over
    rts

over_run:
    dec over_timer
    beq @to_title
    lda over_timer
    cmp #150
    bcs @blink                  ; ignore Start for half a second
    lda pad_new
    and #BTN_START
    bne @to_title
@blink:
    lda over_timer
    and #$0F
    bne @done
    lda over_timer
    and #$10
    beq @on
    QUEUE_AT 10, 15, str_game_blank
    rts
@on:
    QUEUE_AT 10, 15, str_game_over
@done:
    rts
@to_title:
    lda #ST_TITLE_INIT
    sta state
    rts

; ---------------------------------------------------------------------------
; Occupancy bitmap addressing: cell X=gx, Y=gy -> X = byte index, A = bit mask.
occ_locate:
    txa
    and #7
    sta occ_t
    tya
    asl
    asl
    sta occ_byte
    txa
    lsr
    lsr
    lsr
    clc
    adc occ_byte
    tax
    ldy occ_t
    lda bit_masks,y
    rts

.segment "RAMCODE"

; Runs at $0600. occ_set and occ_clear share one read-modify-write instruction
; whose opcode (ORA or AND) and immediate operand are rewritten before it runs,
; so this code changes between consecutive calls within a single frame.
occ_set:
    lda #OP_ORA_IMM
    bne occ_write
occ_clear:
    lda #OP_AND_IMM
occ_write:
    sta occ_rmw
    jsr occ_locate
    ldy occ_rmw
    cpy #OP_ORA_IMM
    beq @mask_ready
    eor #$FF
@mask_ready:
    sta occ_rmw+1
    lda occ_map,x
occ_rmw:
    ora #$00                    ; opcode and operand patched above
    sta occ_map,x
    rts

; Cell X=gx, Y=gy: Z clear when occupied.
occ_test:
    jsr occ_locate
    and occ_map,x
    rts

.segment "RODATA"

palette:
    .byte $0F, $30, $2A, $10,  $0F, $30, $2A, $10
    .byte $0F, $30, $2A, $10,  $0F, $30, $2A, $10
    .byte $0F, $30, $2A, $10,  $0F, $16, $36, $1A
    .byte $0F, $28, $38, $30,  $0F, $30, $2A, $10

snake_colours:
    .byte $2A, $21, $27, $24

bit_masks:
    .byte $80, $40, $20, $10, $08, $04, $02, $01

wave:
    .byte 0, 1, 3, 4, 5, 4, 3, 1, 0, <-1, <-3, <-4, <-5, <-4, <-3, <-1

circle_x:
    .byte 0, 3, 6, 8, 9, 8, 6, 3, 0, <-3, <-6, <-8, <-9, <-8, <-6, <-3
circle_y:
    .byte <-9, <-8, <-6, <-3, 0, 3, 6, 8, 9, 8, 6, 3, 0, <-3, <-6, <-8

logo_rows:
    .addr logo0, logo1, logo2, logo3, logo4
logo0: .byte " ### #  #  ##  #  # ####", 0
logo1: .byte "#    ## # #  # # #  #   ", 0
logo2: .byte " ##  # ## #### ##   ### ", 0
logo3: .byte "   # #  # #  # # #  #   ", 0
logo4: .byte "###  #  # #  # #  # ####", 0

str_tagline:    .byte "EAT THE APPLES!", 0
str_press:      .byte "PRESS START", 0
str_press_off:  .byte "           ", 0
str_help1:      .byte "D-PAD: STEER", 0
str_help2:      .byte "A: DASH    B: COLOUR", 0
str_best:       .byte "BEST ", 0
str_score:      .byte "SCORE", 0
str_len:        .byte "LEN", 0
str_bonus:      .byte "BONUS", 0
str_keys:       .byte "A:DASH  B:COLOUR", 0
str_game_over:  .byte " GAME OVER ", 0
str_game_blank: .byte "           ", 0
