; fountain.s - FOUNTAIN: a particle-physics toy turned into a 90-second catching game.
;
; An emitter (crosshair) sprays up to 32 sparks that fall under gravity, bounce off
; the floor, drift in wind and age from white through orange to red. A basket slides
; along the floor by itself; every spark that lands in it scores a point.
; Title: the fountain runs in attract mode (emitter sweeping, automatic bursts) behind
; the FOUNTAIN title and a blinking PRESS START. Play: d-pad moves the emitter,
; A fires a burst (ring, fan, geyser in turn), B cycles the gravity mode (BOUNCE,
; DRAIN, PORTAL, BREEZE, FLOAT). When the timer reaches zero: TIME UP, then the title.
;
; Control flow the profiler should see: JMP (indirect) state dispatch (run_state),
; RTS-trick burst dispatch with split lo/hi tables (fire_burst), an insertion sort of
; the live sparks by height each frame (nested loops, both branch directions),
; signed scaling through mul8, a run-length decoder for the screen (nested loops),
; and self-modifying code in RAM: integrate_all runs at $0600 and, every frame,
; patch_physics rewrites the immediate operands of its gravity and wind ADCs and the
; target address of its `jsr` to the floor handler of the current mode.

.include "common/nes.inc"
.include "common/runtime.inc"

MAX_P     = 32
FLOOR_Y   = 200                 ; sprite Y at which a spark touches the floor
OAM_SPARK = 16                  ; sprites 0-3: emitter and basket; sparks follow
GAME_SECS = 90

ST_TITLE_INIT = 0
ST_TITLE      = 1
ST_PLAY_INIT  = 2
ST_PLAY       = 3
ST_OVER       = 4

MODE_BREEZE = 3
NUM_MODES   = 5
NUM_BURSTS  = 3

HUD_SCORE = $01
HUD_TIME  = $02
HUD_MODE  = $04
HUD_BURST = $08

.segment "ZEROPAGE"
state:      .res 1
mode:       .res 1
burst_kind: .res 1
emit_x:     .res 1
emit_y:     .res 1
basket_x:   .res 1
basket_dx:  .res 1
score:      .res 2
best:       .res 2
time_sec:   .res 1
tick:       .res 1
over_timer: .res 1
hud_dirty:  .res 1
count:      .res 1              ; live sparks in `order`
next_slot:  .res 1
sort_i:     .res 1
key_i:      .res 1
key_y:      .res 1
sp_vx:      .res 2              ; velocity for spawn, 8.8 signed
sp_vy:      .res 2
sp_tile:    .res 1
burst_i:    .res 1
scaled:     .res 2

.segment "BSS"
px_lo:  .res MAX_P
px_hi:  .res MAX_P
py_lo:  .res MAX_P
py_hi:  .res MAX_P
vx_lo:  .res MAX_P
vx_hi:  .res MAX_P
vy_lo:  .res MAX_P
vy_hi:  .res MAX_P
life:   .res MAX_P              ; frames left; 0 = slot free
ptile:  .res MAX_P
order:  .res MAX_P

.segment "CODE"

main:
    lda #ST_TITLE_INIT
    sta state
main_loop:
    jsr read_pad
    jsr run_state
    jsr wait_nmi
    jmp main_loop

; State dispatch through a pointer: JMP (indirect).
run_state:
    lda state
    asl
    tax
    lda state_table,x
    sta ptr1
    lda state_table+1,x
    sta ptr1+1
    jmp (ptr1)

state_table:
    .addr title_init, title_run, play_init, play_run, over_run

; ---------------------------------------------------------------------------
; Screen setup

; Field drawn from runs of (tile, count in groups of 8; count 0 ends), then a zeroed
; attribute table.
draw_field:
    SET_VADDR 0, 0
    ldx #0
@run:
    ldy field_runs+1,x
    beq @attrs
    sty tmp0
    lda field_runs,x
@group:
    ldy #8
@tile:
    sta PPUDATA
    dey
    bne @tile
    dec tmp0
    bne @group
    inx
    inx
    bne @run
@attrs:
    ldx #64
    lda #0
@attr:
    sta PPUDATA
    dex
    bne @attr
    rts

reset_sparks:
    lda #0
    ldx #MAX_P - 1
@clear:
    sta life,x
    dex
    bpl @clear
    sta next_slot
    sta count
    rts

common_init:
    jsr ppu_off
    SET_PTR0 palette
    jsr load_palette
    jsr draw_field
    jsr hide_sprites
    jsr reset_sparks
    lda #0
    sta mode
    sta burst_kind
    lda #100
    sta basket_x
    lda #1
    sta basket_dx
    lda #128
    sta emit_x
    lda #160
    sta emit_y
    rts

title_init:
    jsr common_init
    PRINT_AT 8, 7, str_title
    PRINT_AT 10, 16, str_press
    PRINT_AT 7, 20, str_help1
    PRINT_AT 7, 21, str_help2
    PRINT_AT 11, 24, str_best
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
    lda #ST_TITLE
    sta state
    jmp ppu_on

play_init:
    jsr common_init
    PRINT_AT 2, 2, str_score
    PRINT_AT 23, 2, str_time
    PRINT_AT 2, 28, str_mode
    PRINT_AT 18, 28, str_burst
    lda #0
    sta score
    sta score+1
    lda #GAME_SECS
    sta time_sec
    lda #60
    sta tick
    lda #HUD_SCORE | HUD_TIME | HUD_MODE | HUD_BURST
    sta hud_dirty
    lda #ST_PLAY
    sta state
    jmp ppu_on

; ---------------------------------------------------------------------------
; States

title_run:
    ; Attract mode: the emitter sweeps by itself and bursts every 128 frames.
    lda frame
    lsr
    lsr
    and #$0F
    tax
    lda sine16,x
    cmp #$80
    ror                         ; signed halve
    clc
    adc #128
    sta emit_x
    jsr trickle
    lda frame
    and #$7F
    bne @no_burst
    jsr fire_burst
    inc burst_kind
    lda burst_kind
    cmp #NUM_BURSTS
    bcc @no_burst
    lda #0
    sta burst_kind
@no_burst:
    jsr simulate
    lda frame
    and #$1F
    bne @check_start
    lda frame
    and #$20
    beq @show
    QUEUE_AT 10, 16, str_press_off
    jmp @check_start
@show:
    QUEUE_AT 10, 16, str_press
@check_start:
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
    jsr move_emitter
    jsr handle_buttons
    jsr trickle
    jsr simulate
    jsr count_down
    jmp draw_hud

over_run:
    jsr simulate
    dec over_timer
    beq @to_title
    lda over_timer
    cmp #180
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

move_emitter:
    lda pad
    and #BTN_LEFT
    beq @not_left
    lda emit_x
    cmp #10
    bcc @not_left
    dec emit_x
    dec emit_x
@not_left:
    lda pad
    and #BTN_RIGHT
    beq @not_right
    lda emit_x
    cmp #238
    bcs @not_right
    inc emit_x
    inc emit_x
@not_right:
    lda pad
    and #BTN_UP
    beq @not_up
    lda emit_y
    cmp #48
    bcc @not_up
    dec emit_y
    dec emit_y
@not_up:
    lda pad
    and #BTN_DOWN
    beq @done
    lda emit_y
    cmp #188
    bcs @done
    inc emit_y
    inc emit_y
@done:
    rts

handle_buttons:
    lda pad_new
    and #BTN_A
    beq @no_a
    jsr fire_burst
    inc burst_kind
    lda burst_kind
    cmp #NUM_BURSTS
    bcc @burst_ok
    lda #0
    sta burst_kind
@burst_ok:
    lda hud_dirty
    ora #HUD_BURST
    sta hud_dirty
@no_a:
    lda pad_new
    and #BTN_B
    beq @done
    ldx mode
    inx
    cpx #NUM_MODES
    bcc @mode_ok
    ldx #0
@mode_ok:
    stx mode
    lda hud_dirty
    ora #HUD_MODE
    sta hud_dirty
@done:
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
    ; Time up: record the best score and let the sparks settle before the title.
    lda #ST_OVER
    sta state
    lda #240
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
    QUEUE_AT 12, 12, str_time_up
@done:
    rts

; ---------------------------------------------------------------------------
; Emission

; A spark every third frame, mostly upwards with a little sideways spread.
trickle:
    lda frame
    and #3
    bne @done
    jsr rand
    and #$7F
    sec
    sbc #$40
    sta sp_vx
    lda #0
    sbc #0                      ; borrow from the subtraction extends the sign
    sta sp_vx+1
    jsr rand
    sta sp_vy
    lda #$FD                    ; -3 + rand/256 pixels per frame
    sta sp_vy+1
    lda #T_SPARK
    sta sp_tile
    jmp spawn
@done:
    rts

; Burst patterns picked with the RTS trick from split address tables.
fire_burst:
    ldx burst_kind
    lda burst_hi,x
    pha
    lda burst_lo,x
    pha
    rts

burst_lo: .lobytes burst_ring-1, burst_fan-1, burst_geyser-1
burst_hi: .hibytes burst_ring-1, burst_fan-1, burst_geyser-1

; Eight sparks on a circle: velocity = sine * 5 / 256 per axis.
burst_ring:
    lda #0
    sta burst_i
@spark:
    lda burst_i
    asl
    clc
    adc #4
    and #$0F
    tax
    lda sine16,x                ; cosine
    jsr scale_by_5
    lda scaled
    sta sp_vx
    lda scaled+1
    sta sp_vx+1
    lda burst_i
    asl
    tax
    lda sine16,x
    jsr scale_by_5
    lda scaled
    sta sp_vy
    lda scaled+1
    sta sp_vy+1
    lda #T_STAR
    sta sp_tile
    jsr spawn
    bcs @full
    inc burst_i
    lda burst_i
    cmp #8
    bne @spark
@full:
    rts

; A fan from up-left to up-right.
burst_fan:
    lda #0
    sta burst_i
@spark:
    lda burst_i
    sec
    sbc #4
    asl
    asl
    asl
    asl
    asl
    asl                         ; (i - 4) * 64
    sta sp_vx
    lda burst_i
    cmp #4
    lda #0
    bcs @right
    lda #$FF
@right:
    sta sp_vx+1
    lda #$00
    sta sp_vy
    lda #$FD
    sta sp_vy+1
    lda #T_STAR
    sta sp_tile
    jsr spawn
    bcs @full
    inc burst_i
    lda burst_i
    cmp #8
    bne @spark
@full:
    rts

; Straight up, fast, with random jitter.
burst_geyser:
    lda #8
    sta burst_i
@spark:
    jsr rand
    and #$3F
    sec
    sbc #$20
    sta sp_vx
    lda #0
    sbc #0
    sta sp_vx+1
    jsr rand
    sta sp_vy
    lda #$FC
    sta sp_vy+1
    lda #T_STAR
    sta sp_tile
    jsr spawn
    bcs @full
    dec burst_i
    bne @spark
@full:
    rts

; Signed A * 5 -> scaled (16-bit): multiply the magnitude, negate if needed.
scale_by_5:
    pha
    bpl @positive
    eor #$FF
    clc
    adc #1
@positive:
    ldy #5
    jsr mul8
    sta scaled+1
    lda mul_a
    sta scaled
    pla
    bpl @done
    sec
    lda #0
    sbc scaled
    sta scaled
    lda #0
    sbc scaled+1
    sta scaled+1
@done:
    rts

; New spark at the emitter with sp_vx/sp_vy/sp_tile. Carry set when all slots
; are taken.
spawn:
    ldy #MAX_P
    ldx next_slot
@find:
    lda life,x
    beq @found
    inx
    cpx #MAX_P
    bcc @no_wrap
    ldx #0
@no_wrap:
    dey
    bne @find
    sec
    rts
@found:
    lda emit_x
    sta px_hi,x
    lda #$80
    sta px_lo,x
    lda emit_y
    sta py_hi,x
    lda #0
    sta py_lo,x
    lda sp_vx
    sta vx_lo,x
    lda sp_vx+1
    sta vx_hi,x
    lda sp_vy
    sta vy_lo,x
    lda sp_vy+1
    sta vy_hi,x
    lda sp_tile
    sta ptile,x
    stx tmp2
    jsr rand
    ldx tmp2
    and #$3F
    clc
    adc #120
    sta life,x
    inx
    cpx #MAX_P
    bcc @keep
    ldx #0
@keep:
    stx next_slot
    clc
    rts

; ---------------------------------------------------------------------------
; One physics frame for every state: patch, integrate, basket, sprites.

simulate:
    jsr patch_physics
    jsr integrate_all
    jsr move_basket
    jsr sort_sparks
    jmp draw_sprites

; Rewrites integrate_all's gravity and wind operands and its floor-handler call.
patch_physics:
    ldx mode
    lda mode_grav_lo,x
    sta grav_lo_op+1
    lda mode_grav_hi,x
    sta grav_hi_op+1
    lda mode_floor_lo,x
    sta floor_call+1
    lda mode_floor_hi,x
    sta floor_call+2
    lda #0
    cpx #MODE_BREEZE
    bne @calm
    lda frame
    lsr
    lsr
    lsr
    and #$0F
    tay
    lda wave,y
@calm:
    sta wind_lo_op+1
    ldy #0
    ora #0
    bpl @positive
    ldy #$FF
@positive:
    sty wind_hi_op+1
    rts

move_basket:
    lda basket_x
    clc
    adc basket_dx
    sta basket_x
    cmp #8
    bcc @turn
    cmp #224
    bcc @done
@turn:
    lda #0
    sec
    sbc basket_dx
    sta basket_dx
@done:
    rts

; Floor handlers, called from integrate_all with X = spark. They keep X.

floor_bounce:
    jsr check_basket
    bcs @done
    lda vy_hi,x
    bmi @done                   ; already moving up
    lda #FLOOR_Y - 1
    sta py_hi,x
    ; New speed = 3/4 of the old one, reversed; a slow spark settles and dies.
    lda vy_hi,x
    sta tmp1
    lda vy_lo,x
    sta tmp0
    lsr tmp1
    ror tmp0
    lsr tmp1
    ror tmp0
    sec
    lda vy_lo,x
    sbc tmp0
    sta tmp0
    lda vy_hi,x
    sbc tmp1
    sta tmp1
    bne @rebound
    lda tmp0
    cmp #$60
    bcs @rebound
    lda #0
    sta life,x
    rts
@rebound:
    sec
    lda #0
    sbc tmp0
    sta vy_lo,x
    lda #0
    sbc tmp1
    sta vy_hi,x
@done:
    rts

floor_drain:
    jsr check_basket
    lda #0
    sta life,x
    rts

; Falls through the floor and reappears at the top at half speed.
floor_portal:
    jsr check_basket
    bcs @done
    lda #16
    sta py_hi,x
    lda vy_hi,x
    cmp #$80
    ror vy_hi,x
    ror vy_lo,x
@done:
    rts

; Carry set (and the spark removed, a point scored) if spark X is over the basket.
check_basket:
    lda px_hi,x
    clc
    adc #4
    sec
    sbc basket_x
    cmp #24
    bcs @miss
    lda #0
    sta life,x
    inc score
    bne @scored
    inc score+1
@scored:
    lda hud_dirty
    ora #HUD_SCORE
    sta hud_dirty
    sec
    rts
@miss:
    clc
    rts

; Live sparks into `order`, then insertion sort by height, lowest on screen
; first, so the sparks nearest the floor win the eight-sprites-per-line limit.
sort_sparks:
    ldx #0
    ldy #0
@collect:
    lda life,y
    beq @free
    tya
    sta order,x
    inx
@free:
    iny
    cpy #MAX_P
    bne @collect
    stx count
    ldx #1
@outer:
    cpx count
    bcs @sorted
    stx sort_i
    lda order,x
    sta key_i
    tay
    lda py_hi,y
    sta key_y
    ldy sort_i
@inner:
    beq @place
    lda order-1,y
    tax
    lda py_hi,x
    cmp key_y
    bcs @place                  ; predecessor is at least as low: stop
    txa
    sta order,y
    dey
    jmp @inner
@place:
    lda key_i
    sta order,y
    ldx sort_i
    inx
    bne @outer
@sorted:
    rts

draw_sprites:
    ; emitter
    lda emit_y
    sta oam+0
    lda #T_CROSS
    sta oam+1
    lda #3
    sta oam+2
    lda emit_x
    sta oam+3
    ; basket, three tiles
    ldx #4
    ldy #T_PADL
    lda basket_x
    sta tmp0
@basket:
    lda #FLOOR_Y
    sta oam,x
    tya
    sta oam+1,x
    lda #3
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
    bne @basket
    ; sparks in sorted order, palette by age
    ldy #OAM_SPARK
    lda #0
    sta tmp1
@spark:
    ldx tmp1
    cpx count
    beq @hide_rest
    lda order,x
    tax
    lda py_hi,x
    sta oam,y
    lda ptile,x
    sta oam+1,y
    lda life,x
    cmp #80
    bcs @young
    cmp #40
    bcs @middle
    lda #2
    bne @palette
@middle:
    lda #1
    bne @palette
@young:
    lda #0
@palette:
    sta oam+2,y
    lda px_hi,x
    sta oam+3,y
    iny
    iny
    iny
    iny
    inc tmp1
    bne @spark
@hide_rest:
    lda #$FF
@hide:
    sta oam,y
    iny
    iny
    iny
    iny
    bne @hide
    rts

draw_hud:
    lda hud_dirty
    beq @done
    lsr
    bcc @no_score
    lda score
    sta num
    lda score+1
    sta num+1
    jsr bin_to_dec
    NTXY 8, 2
    lda #5
    jsr vb_digits
@no_score:
    lda hud_dirty
    and #HUD_TIME
    beq @no_time
    lda time_sec
    sta num
    lda #0
    sta num+1
    jsr bin_to_dec
    NTXY 28, 2
    lda #2
    jsr vb_digits
@no_time:
    lda hud_dirty
    and #HUD_MODE
    beq @no_mode
    lda mode
    asl
    tax
    lda mode_names,x
    sta ptr0
    lda mode_names+1,x
    sta ptr0+1
    NTXY 7, 28
    jsr vb_print
@no_mode:
    lda hud_dirty
    and #HUD_BURST
    beq @clean
    lda burst_kind
    asl
    tax
    lda burst_names,x
    sta ptr0
    lda burst_names+1,x
    sta ptr0+1
    NTXY 24, 28
    jsr vb_print
@clean:
    lda #0
    sta hud_dirty
@done:
    rts

.segment "RAMCODE"

; Runs at $0600. Moves every live spark one frame. The operands of the four
; ADC #imm instructions and the target of `floor_call` are rewritten by
; patch_physics before every run.
integrate_all:
    ldx #MAX_P - 1
ia_next:
    lda life,x
    beq ia_skip
    dec life,x
    beq ia_skip
    clc
    lda vy_lo,x
grav_lo_op:
    adc #$00
    sta vy_lo,x
    lda vy_hi,x
grav_hi_op:
    adc #$00
    sta vy_hi,x
    clc
    lda vx_lo,x
wind_lo_op:
    adc #$00
    sta vx_lo,x
    lda vx_hi,x
wind_hi_op:
    adc #$00
    sta vx_hi,x
    clc
    lda px_lo,x
    adc vx_lo,x
    sta px_lo,x
    lda px_hi,x
    adc vx_hi,x
    sta px_hi,x
    ; Left the screen sideways: the carry disagrees with the direction.
    lda vx_hi,x
    bmi ia_leftward
    bcs ia_gone
    bcc ia_vertical
ia_leftward:
    bcc ia_gone
ia_vertical:
    clc
    lda py_lo,x
    adc vy_lo,x
    sta py_lo,x
    lda py_hi,x
    adc vy_hi,x
    sta py_hi,x
    cmp #FLOOR_Y
    bcc ia_skip
    cmp #$F0
    bcs ia_gone                   ; wrapped past the top of the screen
floor_call:
    jsr floor_bounce            ; target patched per gravity mode
    jmp ia_skip
ia_gone:
    lda #0
    sta life,x
ia_skip:
    dex
    bpl ia_next
    rts

.segment "RODATA"

palette:
    .byte $0F, $30, $00, $27,  $0F, $30, $00, $27
    .byte $0F, $30, $00, $27,  $0F, $30, $00, $27
    .byte $0F, $30, $38, $28,  $0F, $27, $38, $30
    .byte $0F, $16, $27, $30,  $0F, $21, $31, $30

; Rows 0-3 blank (HUD), 4-25 dotted sky, 26 floor, 27-29 blank (HUD).
field_runs:
    .byte T_BLANK, 16, T_CHECK, 88, T_FLOOR, 4, T_BLANK, 12, 0, 0

mode_grav_lo:  .byte $06, $0A, $04, $05, $FC
mode_grav_hi:  .byte $00, $00, $00, $00, $FF
mode_floor_lo: .lobytes floor_bounce, floor_drain, floor_portal, floor_bounce, floor_bounce
mode_floor_hi: .hibytes floor_bounce, floor_drain, floor_portal, floor_bounce, floor_bounce

mode_names:  .addr name_bounce, name_drain, name_portal, name_breeze, name_float
burst_names: .addr name_ring, name_fan, name_geyser

sine16:
    .byte 0, 49, 90, 117, 127, 117, 90, 49
    .byte 0, <-49, <-90, <-117, <-127, <-117, <-90, <-49

wave:
    .byte 0, 2, 4, 6, 7, 6, 4, 2, 0, <-2, <-4, <-6, <-7, <-6, <-4, <-2

name_bounce: .byte "BOUNCE", 0
name_drain:  .byte "DRAIN ", 0
name_portal: .byte "PORTAL", 0
name_breeze: .byte "BREEZE", 0
name_float:  .byte "FLOAT ", 0
name_ring:   .byte "RING  ", 0
name_fan:    .byte "FAN   ", 0
name_geyser: .byte "GEYSER", 0

str_title:     .byte "* F O U N T A I N *", 0
str_press:     .byte "PRESS START", 0
; Blinking PRESS START off restores the dotted sky behind it.
str_press_off: .byte T_CHECK, T_CHECK, T_CHECK, T_CHECK, T_CHECK, T_CHECK
               .byte T_CHECK, T_CHECK, T_CHECK, T_CHECK, T_CHECK, 0
str_help1:     .byte "D-PAD: MOVE EMITTER", 0
str_help2:     .byte "A: BURST  B: GRAVITY", 0
str_best:      .byte "BEST ", 0
str_score:     .byte "SCORE", 0
str_time:      .byte "TIME", 0
str_mode:      .byte "MODE", 0
str_burst:     .byte "BURST", 0
str_time_up:   .byte "TIME UP!", 0
