; breakout.s - BREAKOUT: bat a ball into six rows of bricks.
;
; Title: a rainbow BREAKOUT logo built from brick tiles, a ball bouncing round the
; screen, blinking PRESS START. Play: d-pad left/right moves the paddle (B held =
; fast), A launches the ball (it also launches itself after two seconds). Red, yellow
; and green bands of bricks; dark bevelled bricks take two hits, bright solid bricks
; give an extra life. Where the ball meets the paddle sets its angle. Clearing the
; wall starts a new random level; losing the last ball shows GAME OVER, then the title.
;
; Control flow the profiler should see: the state is a code pointer called with
; JMP (state_vec) (call_state); brick-hit effects are picked with the RTS trick
; (hit_brick); mul8 finds a brick's index (row * 14 + column) and div8 the paddle
; zone; nested loops draw the logo, bricks and attribute table; tail branches into
; another routine (dx_make_pos: bmi negate_dx). Self-modifying code: move_ball runs
; from RAM at $0600 and the ball's velocity lives only in the immediate operands of
; its four ADC instructions; set_dx/set_dy/negate_dx/negate_dy rewrite them on
; every bounce.

.include "common/nes.inc"
.include "common/runtime.inc"

BRICK_ROW0  = 6                 ; nametable row of the top brick row
BRICK_COL0  = 2
BRICK_ROWS  = 6
BRICK_COLS  = 14
NUM_BRICKS  = BRICK_ROWS * BRICK_COLS
PADDLE_Y    = 208
BALL_REST_Y = PADDLE_Y - 8
WALL_LEFT   = 8
WALL_RIGHT  = 240
WALL_TOP    = 40
DY_BASE     = 112               ; vertical speed = DY_BASE * speed / 256 px
MAX_LIVES   = 5

HUD_SCORE = $01
HUD_LIVES = $02
HUD_LEVEL = $04

.segment "ZEROPAGE"
state_vec:   .res 2             ; handler for the current state
paddle_x:    .res 1
ball_x_lo:   .res 1
ball_x:      .res 1
ball_y_lo:   .res 1
ball_y:      .res 1
lives:       .res 1
level:       .res 1
score:       .res 2
best:        .res 2
speed:       .res 1
hits:        .res 1
bricks_left: .res 1
brick_r:     .res 1
brick_c:     .res 1
brick_i:     .res 1
zone:        .res 1
serve_timer: .res 1
over_timer:  .res 1
hud_dirty:   .res 1
row_i:       .res 1
col_i:       .res 1

.segment "BSS"
bricks:      .res NUM_BRICKS    ; 0 gone, 1 plain, 2 hard, 3 bonus

.macro GOTO_STATE handler
    lda #<handler
    sta state_vec
    lda #>handler
    sta state_vec+1
.endmacro

.segment "CODE"

main:
    GOTO_STATE st_title_init
main_loop:
    jsr read_pad
    jsr call_state
    jsr wait_nmi
    jmp main_loop

call_state:
    jmp (state_vec)

; ---------------------------------------------------------------------------
; Velocity: the operands of move_ball's ADCs (RAM code) are the ball's velocity.

; A = low byte, X = high byte.
set_dx:
    sta mb_dx_lo+1
    stx mb_dx_hi+1
    rts

set_dy:
    sta mb_dy_lo+1
    stx mb_dy_hi+1
    rts

negate_dx:
    sec
    lda #0
    sbc mb_dx_lo+1
    sta mb_dx_lo+1
    lda #0
    sbc mb_dx_hi+1
    sta mb_dx_hi+1
    rts

negate_dy:
    sec
    lda #0
    sbc mb_dy_lo+1
    sta mb_dy_lo+1
    lda #0
    sbc mb_dy_hi+1
    sta mb_dy_hi+1
    rts

dx_make_pos:
    lda mb_dx_hi+1
    bmi negate_dx
    rts

dx_make_neg:
    lda mb_dx_hi+1
    bpl negate_dx
    rts

dy_make_pos:
    lda mb_dy_hi+1
    bmi negate_dy
    rts

dy_make_neg:
    lda mb_dy_hi+1
    bpl negate_dy
    rts

; Magnitude A scaled by the current speed: A = low, X = high.
scale_speed:
    ldy speed
    jsr mul8
    tax
    lda mul_a
    rts

; ---------------------------------------------------------------------------
; Screens

draw_walls:
    SET_VADDR 0, 4
    ldx #32
    lda #T_WALL
@top:
    sta PPUDATA
    dex
    bne @top
    lda #CTRL_NMI | $04
    sta PPUCTRL
    ldy #0
@side:
    lda #>($2000 + 5 * 32)
    sta PPUADDR
    lda side_lo,y
    sta PPUADDR
    ldx #25
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

; Attribute table, row by row: the outer two tile columns keep palette 0 on the
; play screen so the side walls stay grey (tmp1 = 0); the title (tmp1 = 1) uses
; the band colour across the whole width.
draw_attrs:
    lda #$23
    sta PPUADDR
    lda #$C0
    sta PPUADDR
    ldy #0
@row:
    lda attr_mid,y
    ldx tmp1
    bne @left_ready
    lda attr_left,y
@left_ready:
    sta PPUDATA
    lda attr_mid,y
    ldx #6
@col:
    sta PPUDATA
    dex
    bne @col
    ldx tmp1
    bne @right_ready
    lda attr_right,y
@right_ready:
    sta PPUDATA
    iny
    cpy #8
    bne @row
    rts

st_title_init:
    jsr ppu_off
    lda #T_BLANK
    ldx #0
    jsr clear_nt
    SET_PTR0 palette
    jsr load_palette
    lda #1
    sta tmp1
    jsr draw_attrs
    jsr draw_logo
    PRINT_AT 10, 16, str_press
    PRINT_AT 6, 19, str_help1
    PRINT_AT 6, 20, str_help2
    PRINT_AT 10, 23, str_best
    lda best
    sta num
    lda best+1
    sta num+1
    jsr bin_to_dec
    ldx #0
@digit:
    lda digits,x
    sta PPUDATA
    inx
    cpx #5
    bne @digit
    jsr hide_sprites
    lda #4
    sta speed
    lda #120
    sta ball_x
    lda #150
    sta ball_y
    lda #$A0
    ldx #$01
    jsr set_dx
    lda #$40
    ldx #$FE
    jsr set_dy
    GOTO_STATE st_title
    jmp ppu_on

; Logo strings: '#' is a brick tile.
draw_logo:
    lda #0
    sta row_i
@row:
    lda row_i
    clc
    adc #BRICK_ROW0
    tay
    lda #0
    jsr nt_addr
    stx PPUADDR
    sty PPUADDR
    lda row_i
    asl
    tax
    lda logo_rows,x
    sta ptr0
    lda logo_rows+1,x
    sta ptr0+1
    ldy #0
@col:
    lda (ptr0),y
    beq @next
    cmp #'#'
    beq @brick
    lda #T_BLANK
    beq @put
@brick:
    lda #T_BRICK
@put:
    sta PPUDATA
    iny
    bne @col
@next:
    inc row_i
    lda row_i
    cmp #5
    bne @row
    rts

st_title:
    jsr move_ball
    jsr bounce_walls
    lda ball_y
    cmp #216
    bcc @above
    jsr dy_make_neg
@above:
    jsr draw_ball
    lda frame
    and #$1F
    bne @check
    lda frame
    and #$20
    beq @show
    QUEUE_AT 10, 16, str_press_off
    jmp @check
@show:
    QUEUE_AT 10, 16, str_press
@check:
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
    lda #0
    sta score
    sta score+1
    lda #3
    sta lives
    lda #1
    sta level
    GOTO_STATE st_level_init
@done:
    rts

st_level_init:
    jsr ppu_off
    lda #T_BLANK
    ldx #0
    jsr clear_nt
    lda #0
    sta tmp1
    jsr draw_attrs
    jsr draw_walls
    PRINT_AT 1, 2, str_score
    PRINT_AT 13, 2, str_level
    jsr build_level
    jsr draw_bricks
    jsr hide_sprites
    lda #4
    sta speed
    lda #0
    sta hits
    lda #112
    sta paddle_x
    lda #HUD_SCORE | HUD_LIVES | HUD_LEVEL
    sta hud_dirty
    jsr draw_hud
    jsr start_serve
    jmp ppu_on

; Level 1 is fixed; later levels are random, with holes, hard and bonus bricks.
build_level:
    ldx #0
    lda level
    cmp #1
    bne @random
@copy:
    lda level1,x
    sta bricks,x
    inx
    cpx #NUM_BRICKS
    bne @copy
    beq @count
@random:
    stx brick_i
    jsr rand
    ldx brick_i
    cmp #24
    bcc @store_a                ; A < 24: keep as "hole" below
    cmp #72
    bcc @hard
    cmp #88
    bcc @bonus
    lda #1
    bne @store
@hard:
    lda #2
    bne @store
@bonus:
    lda #3
    bne @store
@store_a:
    lda #0
@store:
    sta bricks,x
    inx
    cpx #NUM_BRICKS
    bne @random
@count:
    ldx #0
    ldy #0
@tally:
    lda bricks,x
    beq @empty
    iny
@empty:
    inx
    cpx #NUM_BRICKS
    bne @tally
    sty bricks_left
    cpy #0
    bne @done
    lda #1                      ; never start a level with nothing to hit
    sta bricks
    inc bricks_left
@done:
    rts

draw_bricks:
    ldx #0
    stx brick_i
    stx row_i
@row:
    lda row_i
    clc
    adc #BRICK_ROW0
    tay
    lda #BRICK_COL0
    jsr nt_addr
    stx PPUADDR
    sty PPUADDR
    lda #BRICK_COLS
    sta col_i
@brick:
    ldx brick_i
    ldy bricks,x
    lda kind_tile,y
    sta PPUDATA
    sta PPUDATA
    inc brick_i
    dec col_i
    bne @brick
    inc row_i
    lda row_i
    cmp #BRICK_ROWS
    bne @row
    rts

; ---------------------------------------------------------------------------
; Serving and playing

start_serve:
    lda #120
    sta serve_timer
    GOTO_STATE st_serve
    rts

st_serve:
    jsr move_paddle
    lda paddle_x
    clc
    adc #8
    sta ball_x
    lda #BALL_REST_Y
    sta ball_y
    lda #0
    sta ball_x_lo
    sta ball_y_lo
    dec serve_timer
    beq @launch
    lda pad_new
    and #BTN_A
    beq @draw
@launch:
    ; Up and sideways, the side picked by the frame counter's low bit.
    lda #80
    jsr scale_speed
    jsr set_dx
    lda frame
    lsr
    bcc @right
    jsr negate_dx
@right:
    lda #DY_BASE
    jsr scale_speed
    jsr set_dy
    jsr negate_dy
    GOTO_STATE st_play
@draw:
    jsr draw_ball
    jmp draw_paddle

st_play:
    jsr move_paddle
    jsr move_ball
    jsr bounce_walls
    jsr hit_paddle
    jsr check_bricks
    lda bricks_left
    bne @not_clear
    inc level
    lda #HUD_LEVEL
    sta hud_dirty
    GOTO_STATE st_level_init
    rts
@not_clear:
    lda ball_y
    cmp #224
    bcc @draw
    cmp #248
    bcs @draw
    jsr lose_ball
@draw:
    jsr draw_ball
    jsr draw_paddle
    jmp draw_hud

lose_ball:
    dec lives
    lda hud_dirty
    ora #HUD_LIVES
    sta hud_dirty
    lda lives
    beq @over
    jmp start_serve
@over:
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
    QUEUE_AT 11, 14, str_game_over
    GOTO_STATE st_over
    rts

st_over:
    jsr draw_hud
    lda #$FF
    sta oam                     ; ball gone
    dec over_timer
    beq @to_title
    lda over_timer
    cmp #120
    bcs @done
    lda pad_new
    and #BTN_START
    beq @done
@to_title:
    GOTO_STATE st_title_init
@done:
    rts

move_paddle:
    ldx #2
    lda pad
    and #BTN_B
    beq @slow
    ldx #4
@slow:
    stx tmp0
    lda pad
    and #BTN_LEFT
    beq @not_left
    lda paddle_x
    sec
    sbc tmp0
    cmp #WALL_LEFT
    bcs @store
    lda #WALL_LEFT
    bne @store
@not_left:
    lda pad
    and #BTN_RIGHT
    beq @done
    lda paddle_x
    clc
    adc tmp0
    cmp #WALL_RIGHT - 16
    bcc @store
    lda #WALL_RIGHT - 16
@store:
    sta paddle_x
@done:
    rts

bounce_walls:
    lda ball_x
    cmp #WALL_LEFT
    bcs @not_left
    lda #WALL_LEFT
    sta ball_x
    jsr dx_make_pos
    jmp @top
@not_left:
    cmp #WALL_RIGHT
    bcc @top
    lda #WALL_RIGHT - 1
    sta ball_x
    jsr dx_make_neg
@top:
    lda ball_y
    cmp #WALL_TOP
    bcs @done
    lda #WALL_TOP
    sta ball_y
    jsr dy_make_pos
@done:
    rts

; Falling ball over the paddle: the hit position picks one of six angles.
hit_paddle:
    lda mb_dy_hi+1
    bmi @miss
    lda ball_y
    cmp #BALL_REST_Y
    bcc @miss
    cmp #BALL_REST_Y + 7
    bcs @miss
    lda ball_x
    clc
    adc #8
    sec
    sbc paddle_x
    cmp #30
    bcs @miss
    ldy #5
    jsr div8                    ; 0..29 / 5 -> zone 0..5
    sta zone
    tax
    lda zone_mag,x
    jsr scale_speed
    jsr set_dx
    lda zone
    cmp #3
    bcs @rightwards
    jsr negate_dx
@rightwards:
    lda #DY_BASE
    jsr scale_speed
    jsr set_dy
    jsr negate_dy
    lda #BALL_REST_Y
    sta ball_y
@miss:
    rts

; The ball's centre tile, if inside the brick area, names a brick.
check_bricks:
    lda ball_y
    clc
    adc #4
    lsr
    lsr
    lsr
    sec
    sbc #BRICK_ROW0
    cmp #BRICK_ROWS
    bcs @none
    sta brick_r
    lda ball_x
    clc
    adc #4
    lsr
    lsr
    lsr
    sec
    sbc #BRICK_COL0
    cmp #BRICK_COLS * 2
    bcs @none
    lsr
    sta brick_c
    lda brick_r
    ldy #BRICK_COLS
    jsr mul8
    lda mul_a
    clc
    adc brick_c
    sta brick_i
    tax
    lda bricks,x
    beq @none
    pha
    jsr negate_dy
    pla
    jsr hit_brick
    inc hits
    lda hits
    cmp #10
    bcc @none
    lda #0
    sta hits
    lda speed
    cmp #6
    bcs @none
    inc speed
@none:
    rts

; Effect by brick kind (A = 1..3), dispatched with the RTS trick.
hit_brick:
    tax
    lda hit_hi-1,x
    pha
    lda hit_lo-1,x
    pha
    rts

hit_lo: .lobytes hit_plain-1, hit_hard-1, hit_bonus-1
hit_hi: .hibytes hit_plain-1, hit_hard-1, hit_bonus-1

hit_plain:
    jsr remove_brick
    lda level
    clc
    adc #10
    jmp add_score

hit_hard:
    ldx brick_i
    lda #1
    sta bricks,x
    jsr queue_brick
    lda #5
    jmp add_score

hit_bonus:
    jsr remove_brick
    lda lives
    cmp #MAX_LIVES
    bcs @full
    inc lives
    lda hud_dirty
    ora #HUD_LIVES
    sta hud_dirty
@full:
    lda #50
    jmp add_score

remove_brick:
    ldx brick_i
    lda #0
    sta bricks,x
    dec bricks_left
    ; falls into queue_brick

; Redraws brick brick_r/brick_c from the map (two tiles).
queue_brick:
    lda brick_c
    asl
    clc
    adc #BRICK_COL0
    pha
    lda brick_r
    clc
    adc #BRICK_ROW0
    tay
    pla
    jsr nt_addr
    lda #2
    jsr vb_start
    ldx brick_i
    ldy bricks,x
    lda kind_tile,y
    jsr vb_put
    jmp vb_put

add_score:
    clc
    adc score
    sta score
    bcc @done
    inc score+1
@done:
    lda hud_dirty
    ora #HUD_SCORE
    sta hud_dirty
    rts

draw_ball:
    lda ball_y
    sta oam+0
    lda #T_BALL
    sta oam+1
    lda #0
    sta oam+2
    lda ball_x
    sta oam+3
    rts

draw_paddle:
    lda paddle_x
    sta tmp0
    ldx #4
    ldy #T_PADL
@tile:
    lda #PADDLE_Y
    sta oam,x
    tya
    sta oam+1,x
    lda #1
    sta oam+2,x
    lda tmp0
    sta oam+3,x
    clc
    adc #8
    sta tmp0
    iny
    inx
    inx
    inx
    inx
    cpx #16
    bne @tile
    rts

draw_hud:
    lda hud_dirty
    beq @done
    and #HUD_SCORE
    beq @no_score
    lda score
    sta num
    lda score+1
    sta num+1
    jsr bin_to_dec
    NTXY 7, 2
    lda #5
    jsr vb_digits
@no_score:
    lda hud_dirty
    and #HUD_LEVEL
    beq @no_level
    lda level
    sta num
    lda #0
    sta num+1
    jsr bin_to_dec
    NTXY 19, 2
    lda #2
    jsr vb_digits
@no_level:
    lda hud_dirty
    and #HUD_LIVES
    beq @clean
    NTXY 24, 2
    lda #MAX_LIVES
    jsr vb_start
    ldy #0
@heart:
    lda #T_HEART
    cpy lives
    bcc @put
    lda #T_BLANK
@put:
    jsr vb_put
    iny
    cpy #MAX_LIVES
    bne @heart
@clean:
    lda #0
    sta hud_dirty
@done:
    rts

.segment "RAMCODE"

; Runs at $0600. The ball's velocity is stored nowhere else than in the operands
; of these four ADCs, which the velocity routines rewrite on each bounce.
move_ball:
    clc
    lda ball_x_lo
mb_dx_lo:
    adc #$00
    sta ball_x_lo
    lda ball_x
mb_dx_hi:
    adc #$00
    sta ball_x
    clc
    lda ball_y_lo
mb_dy_lo:
    adc #$00
    sta ball_y_lo
    lda ball_y
mb_dy_hi:
    adc #$00
    sta ball_y
    rts

.segment "RODATA"

palette:
    .byte $0F, $30, $16, $10,  $0F, $07, $16, $36
    .byte $0F, $08, $28, $38,  $0F, $09, $2A, $3A
    .byte $0F, $30, $30, $30,  $0F, $11, $21, $31
    .byte $0F, $30, $30, $30,  $0F, $30, $30, $30

; Rows 6-7 red, 8-9 yellow, 10-11 green (palettes 1, 2, 3).
attr_mid:
    .byte $00, $50, $FA, $00, $00, $00, $00, $00
attr_left:
    .byte $00, $40, $C8, $00, $00, $00, $00, $00
attr_right:
    .byte $00, $10, $32, $00, $00, $00, $00, $00

kind_tile:
    .byte T_BLANK, T_BRICK, T_BLOCK, T_SOLID3

zone_mag:
    .byte 128, 80, 32, 32, 80, 128

level1:
    .byte 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2
    .byte 1, 1, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1
    .byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
    .byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
    .byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
    .byte 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1

logo_rows:
    .addr logo0, logo1, logo2, logo3, logo4
logo0: .byte " ##. ##. ### .#. #.# ### #.# ###", 0
logo1: .byte " #.# #.# #.. #.# #.# #.# #.# .#.", 0
logo2: .byte " ##. ##. ##. ### ##. #.# #.# .#.", 0
logo3: .byte " #.# #.# #.. #.# #.# #.# #.# .#.", 0
logo4: .byte " ##. #.# ### #.# #.# ### ### .#.", 0

str_press:      .byte "PRESS START", 0
str_press_off:  .byte "           ", 0
str_help1:      .byte "D-PAD: MOVE   B: FAST", 0
str_help2:      .byte "A: LAUNCH THE BALL", 0
str_best:       .byte "BEST ", 0
str_score:      .byte "SCORE", 0
str_level:      .byte "LEVEL", 0
str_game_over:  .byte "GAME OVER", 0
