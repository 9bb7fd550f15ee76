; maze.s - MAZE CHASE: eat every pellet in a maze while three chasers hunt you.
;
; Title: MAZE CHASE, a parade of the player and the chasers running across the
; screen, blinking PRESS START. Play: d-pad steers (you can reverse at any time and
; turn at junctions), B held = dash (double speed), A = freeze the chasers for two
; seconds (three charges per level). Big pellets scare the chasers for six seconds:
; touching a scared chaser sends it home for 200 points, touching a normal one costs
; a life. The chasers alternate between hunting and going to their corners, so they
; move all the time. Clearing the maze starts the next level; no lives left shows
; GAME OVER, then the title.
;
; Control flow the profiler should see: JMP (indirect) state dispatch (run_state);
; RTS-trick dispatch of each chaser's targeting mode (pick_target); a four-way
; candidate loop with absolute differences and minimum search (choose_dir);
; nested loops drawing the maze from its text map; a branch chain for stepping
; (step_entity). Self-modifying code: map_at runs from RAM at $0600 and rewrites the
; 16-bit address operand of its own `lda abs,y` on every call to point at the
; requested maze row; it is called hundreds of times per frame.

.include "common/nes.inc"
.include "common/runtime.inc"

MAZE_ROW0   = 4                 ; nametable row of maze row 0
MAZE_H      = 24
NUM_PELLETS = 382
NUM_ENT     = 4                 ; 0 = player, 1-3 = chasers
SCARED_TIME = 360
SCATTER_TIME = 420
CHASE_TIME  = 1200
FREEZE_TIME = 120

ST_TITLE_INIT = 0
ST_TITLE      = 1
ST_LEVEL_INIT = 2
ST_READY      = 3
ST_PLAY       = 4
ST_DYING      = 5
ST_CLEAR      = 6
ST_OVER       = 7

HUD_SCORE  = $01
HUD_LEVEL  = $02
HUD_LIVES  = $04
HUD_FREEZE = $08

.segment "ZEROPAGE"
state:          .res 1
state_timer:    .res 1
lives:          .res 1
level:          .res 1
score:          .res 2
best:           .res 2
pellets:        .res 2
freeze_charges: .res 1
freeze_timer:   .res 1
scared_timer:   .res 2
phase_timer:    .res 2
scatter:        .res 1          ; 1 while chasers head for their corners
speed_mask:     .res 1
hud_dirty:      .res 1
next_dir:       .res 1
ent_x:          .res NUM_ENT    ; pixels from the maze's top-left corner
ent_y:          .res NUM_ENT
ent_dir:        .res NUM_ENT    ; 0 up, 1 right, 2 down, 3 left
ent_mode:       .res NUM_ENT    ; chasers: 0 normal, 1 scared
ent_i:          .res 1
tile_c:         .res 1
tile_r:         .res 1
target_c:       .res 1
target_r:       .res 1
cand_d:         .res 1
best_d:         .res 1
best_dist:      .res 1
map_col:        .res 1
bit_i:          .res 1
row_i:          .res 1

.segment "BSS"
eaten:          .res MAZE_H * 4 ; one bit per maze tile

.segment "CODE"

main:
    lda #ST_TITLE_INIT
    sta state
main_loop:
    jsr read_pad
    jsr run_state
    jsr wait_nmi
    jmp main_loop

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
    .addr st_title_init, st_title, st_level_init, st_ready
    .addr st_play, st_dying, st_clear, st_over

; ---------------------------------------------------------------------------
; Title

st_title_init:
    jsr ppu_off
    lda #T_BLANK
    ldx #0
    jsr clear_nt
    SET_PTR0 palette
    jsr load_palette
    PRINT_AT 6, 7, str_title
    PRINT_AT 10, 18, str_press
    PRINT_AT 6, 21, str_help1
    PRINT_AT 6, 22, str_help2
    PRINT_AT 11, 25, str_best
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
    lda #ST_TITLE
    sta state
    jmp ppu_on

st_title:
    jsr title_parade
    lda frame
    and #$1F
    bne @check
    lda frame
    and #$20
    beq @show
    QUEUE_AT 10, 18, str_blank11
    jmp @check
@show:
    QUEUE_AT 10, 18, str_press
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
    lda #ST_LEVEL_INIT
    sta state
@done:
    rts

; The player runs right with the chasers behind; every 256 frames the roles
; swap and the scared chasers run ahead instead.
title_parade:
    ldx #0
@sprite:
    lda #112
    sta oam,x
    txa
    lsr
    lsr                         ; sprite number 0-3
    tay
    lda frame+1
    and #1
    bne @chasers_lead
    lda frame
    sec
    sbc parade_gap,y
    jmp @place
@chasers_lead:
    lda frame
    clc
    adc parade_gap,y
@place:
    sta oam+3,x
    cpy #0
    bne @chaser
    lda #T_PLAYER
    sta oam+1,x
    lda #0
    sta oam+2,x
    beq @next
@chaser:
    lda frame+1
    and #1
    beq @angry
    lda #T_SCARED
    sta oam+1,x
    lda #0
    sta oam+2,x
    beq @next
@angry:
    lda frame
    and #8
    beq @frame1
    lda #T_CHASER2
    bne @tile
@frame1:
    lda #T_CHASER1
@tile:
    sta oam+1,x
    tya
    sta oam+2,x
@next:
    inx
    inx
    inx
    inx
    cpx #16
    bne @sprite
    rts

; ---------------------------------------------------------------------------
; Level setup

st_level_init:
    jsr ppu_off
    lda #T_BLANK
    ldx #0
    jsr clear_nt
    jsr draw_attrs
    jsr draw_maze
    PRINT_AT 1, 2, str_score
    PRINT_AT 13, 2, str_level
    PRINT_AT 19, 2, str_freeze
    jsr hide_sprites
    ldx #MAZE_H * 4 - 1
    lda #0
@clear:
    sta eaten,x
    dex
    bpl @clear
    lda #<NUM_PELLETS
    sta pellets
    lda #>NUM_PELLETS
    sta pellets+1
    lda #3
    sta freeze_charges
    ldx #3
    lda level
    cmp #3
    bcc @slow
    ldx #7                      ; from level 3 the chasers skip fewer frames
@slow:
    stx speed_mask
    lda #HUD_SCORE | HUD_LEVEL | HUD_LIVES | HUD_FREEZE
    sta hud_dirty
    jsr draw_hud
    jsr start_ready
    jmp ppu_on

; Maze rows 4-27 use background palette 1; the HUD rows keep palette 0.
draw_attrs:
    lda #$23
    sta PPUADDR
    lda #$C0
    sta PPUADDR
    ldy #0
@row:
    lda #$00
    cpy #1
    bcc @put_row
    cpy #7
    bcs @put_row
    lda #$55
@put_row:
    ldx #8
@col:
    sta PPUDATA
    dex
    bne @col
    iny
    cpy #8
    bne @row
    rts

draw_maze:
    SET_VADDR 0, MAZE_ROW0
    lda #0
    sta row_i
@row:
    ldx #0
@col:
    txa
    ldy row_i
    jsr map_at
    cmp #'#'
    beq @wall
    cmp #'o'
    beq @power
    cmp #'.'
    beq @pellet
    lda #T_BLANK
    bne @put
@wall:
    lda #T_MAZE
    bne @put
@power:
    lda #T_POWER
    bne @put
@pellet:
    lda #T_PELLET
@put:
    sta PPUDATA
    inx
    cpx #32
    bne @col
    inc row_i
    lda row_i
    cmp #MAZE_H
    bne @row
    rts

; Everyone back to their start, then a pause with READY! shown.
start_ready:
    ldx #NUM_ENT - 1
@ent:
    lda start_c,x
    asl
    asl
    asl
    sta ent_x,x
    lda start_r,x
    asl
    asl
    asl
    sta ent_y,x
    lda start_dir,x
    sta ent_dir,x
    lda #0
    sta ent_mode,x
    dex
    bpl @ent
    lda #3
    sta next_dir
    lda #0
    sta scatter
    sta freeze_timer
    sta scared_timer
    sta scared_timer+1
    lda #<SCATTER_TIME
    sta phase_timer
    lda #>SCATTER_TIME
    sta phase_timer+1
    inc scatter
    lda #90
    sta state_timer
    lda #ST_READY
    sta state
    QUEUE_AT 10, 28, str_ready
    jmp draw_entities

st_ready:
    dec state_timer
    bne @wait
    QUEUE_AT 10, 28, str_blank12
    lda #ST_PLAY
    sta state
@wait:
    rts

; ---------------------------------------------------------------------------
; Playing

st_play:
    jsr read_direction
    jsr use_freeze
    jsr move_player
    lda state
    cmp #ST_PLAY
    bne @done                   ; the last pellet was eaten
    jsr update_timers
    jsr move_chasers
    jsr check_collisions
    jsr draw_entities
    jsr draw_hud
@done:
    rts

read_direction:
    ldx #0
@dir:
    lda pad
    and dir_buttons,x
    beq @next
    stx next_dir
    rts
@next:
    inx
    cpx #4
    bne @dir
    rts

use_freeze:
    lda pad_new
    and #BTN_A
    beq @done
    lda freeze_charges
    beq @done
    dec freeze_charges
    lda #FREEZE_TIME
    sta freeze_timer
    lda hud_dirty
    ora #HUD_FREEZE
    sta hud_dirty
@done:
    rts

; Scared countdown and the scatter/chase phase switch (chasers turn round when
; the phase changes).
update_timers:
    lda scared_timer
    ora scared_timer+1
    beq @phase
    lda scared_timer
    bne @dec_lo
    dec scared_timer+1
@dec_lo:
    dec scared_timer
    lda scared_timer
    ora scared_timer+1
    bne @phase
    ldx #NUM_ENT - 1
@calm:
    lda #0
    sta ent_mode,x
    dex
    bne @calm
@phase:
    lda phase_timer
    bne @phase_lo
    dec phase_timer+1
@phase_lo:
    dec phase_timer
    lda phase_timer
    ora phase_timer+1
    bne @done
    lda scatter
    eor #1
    sta scatter
    beq @chase
    lda #<SCATTER_TIME
    sta phase_timer
    lda #>SCATTER_TIME
    sta phase_timer+1
    bne @turn
@chase:
    lda #<CHASE_TIME
    sta phase_timer
    lda #>CHASE_TIME
    sta phase_timer+1
@turn:
    ldx #NUM_ENT - 1
@reverse:
    lda ent_dir,x
    eor #2
    sta ent_dir,x
    dex
    bne @reverse
@done:
    rts

; Z set when entity X sits exactly on a tile.
is_aligned:
    lda ent_x,x
    ora ent_y,x
    and #7
    rts

move_player:
    ldx #0
    lda next_dir
    eor ent_dir
    cmp #2
    bne @not_reverse
    lda next_dir
    sta ent_dir
@not_reverse:
    jsr is_aligned
    bne @go
    jsr eat_pellet
    lda state
    cmp #ST_PLAY
    bne @stop
    ldx #0
    lda next_dir
    jsr dir_open
    bcc @keep
    lda next_dir
    sta ent_dir
@keep:
    ldx #0
    lda ent_dir
    jsr dir_open
    bcc @stop
@go:
    ldx #0
    jsr step_entity
    ; Dash: a second pixel, only from even positions so tile corners are never
    ; stepped over.
    lda pad
    and #BTN_B
    beq @stop
    lda ent_x
    ora ent_y
    lsr
    bcs @stop
    jsr is_aligned
    beq @stop
    jsr step_entity
@stop:
    rts

; One pixel in the entity's direction.
step_entity:
    lda ent_dir,x
    beq @up
    cmp #2
    beq @down
    bcc @right
    dec ent_x,x
    rts
@up:
    dec ent_y,x
    rts
@down:
    inc ent_y,x
    rts
@right:
    inc ent_x,x
    rts

; Carry set if the tile next to entity X in direction A is not a wall; the
; neighbour tile is left in tile_c/tile_r.
dir_open:
    tay
    lda ent_x,x
    lsr
    lsr
    lsr
    clc
    adc dir_dc,y
    sta tile_c
    lda ent_y,x
    lsr
    lsr
    lsr
    clc
    adc dir_dr,y
    sta tile_r
    tay
    lda tile_c
    jsr map_at
    cmp #'#'
    beq @wall
    sec
    rts
@wall:
    clc
    rts

; Player on a tile: eat whatever pellet is there.
eat_pellet:
    lda ent_x
    lsr
    lsr
    lsr
    sta tile_c
    lda ent_y
    lsr
    lsr
    lsr
    sta tile_r
    tay
    lda tile_c
    jsr map_at
    cmp #'.'
    beq @pellet
    cmp #'o'
    beq @pellet
    rts
@pellet:
    sta tmp1
    jsr eaten_locate
    and eaten,x
    bne @gone
    lda bit_mask,y
    ora eaten,x
    sta eaten,x
    lda tile_c
    sta tmp2
    lda tile_r
    clc
    adc #MAZE_ROW0
    sta tmp3
    lda #T_BLANK
    jsr vb_tile_at
    lda tmp1
    cmp #'o'
    bne @small
    jsr scare_chasers
    lda #50
    bne @score
@small:
    lda #10
@score:
    jsr add_score
    lda pellets
    bne @dec_lo
    dec pellets+1
@dec_lo:
    dec pellets
    lda pellets
    ora pellets+1
    bne @gone
    lda #120
    sta state_timer
    lda #ST_CLEAR
    sta state
    QUEUE_AT 10, 28, str_clear
@gone:
    rts

; tile_c/tile_r -> X = byte of `eaten`, A = Y-indexed mask (Y = bit number).
eaten_locate:
    lda tile_c
    and #7
    sta bit_i
    lda tile_r
    asl
    asl
    sta tmp0
    lda tile_c
    lsr
    lsr
    lsr
    clc
    adc tmp0
    tax
    ldy bit_i
    lda bit_mask,y
    rts

scare_chasers:
    lda #<SCARED_TIME
    sta scared_timer
    lda #>SCARED_TIME
    sta scared_timer+1
    ldx #NUM_ENT - 1
@ent:
    lda #1
    sta ent_mode,x
    lda ent_dir,x
    eor #2
    sta ent_dir,x
    dex
    bne @ent
    rts

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

; ---------------------------------------------------------------------------
; Chasers

move_chasers:
    lda freeze_timer
    beq @thawed
    dec freeze_timer
    rts
@thawed:
    ldx #1
@loop:
    stx ent_i
    lda ent_mode,x
    beq @normal
    lda frame
    and #1
    bne @next                   ; scared: half speed
    beq @go
@normal:
    lda frame
    and speed_mask
    beq @next                   ; rests one frame in four (in eight later)
@go:
    jsr is_aligned
    bne @step
    jsr choose_dir
    ldx ent_i
@step:
    jsr step_entity
@next:
    ldx ent_i
    inx
    cpx #NUM_ENT
    bne @loop
    rts

; At a tile: try each direction except straight back and keep the one whose
; neighbour tile is nearest (Manhattan) to the target.
choose_dir:
    jsr pick_target
    ldx ent_i
    lda ent_dir,x
    eor #2
    sta best_d                  ; dead end: turn round
    lda #$FF
    sta best_dist
    lda #0
    sta cand_d
@cand:
    ldx ent_i
    lda ent_dir,x
    eor #2
    cmp cand_d
    beq @skip
    lda cand_d
    jsr dir_open
    bcc @skip
    lda tile_c
    sec
    sbc target_c
    bcs @dx_pos
    eor #$FF
    adc #1
@dx_pos:
    sta tmp0
    lda tile_r
    sec
    sbc target_r
    bcs @dy_pos
    eor #$FF
    adc #1
@dy_pos:
    clc
    adc tmp0
    cmp best_dist
    bcs @skip
    sta best_dist
    lda cand_d
    sta best_d
@skip:
    inc cand_d
    lda cand_d
    cmp #4
    bne @cand
    ldx ent_i
    lda best_d
    sta ent_dir,x
    rts

; Target tile for chaser ent_i, by mode, through the RTS trick.
pick_target:
    ldx ent_i
    ldy #2
    lda ent_mode,x
    bne @dispatch
    ldy scatter
@dispatch:
    lda ai_hi,y
    pha
    lda ai_lo,y
    pha
    rts

ai_lo: .lobytes ai_chase-1, ai_scatter-1, ai_scared-1
ai_hi: .hibytes ai_chase-1, ai_scatter-1, ai_scared-1

ai_scatter:
    lda corner_c,x
    sta target_c
    lda corner_r,x
    sta target_r
    rts

ai_scared:
    jsr rand
    and #31
    sta target_c
    ldy #MAZE_H
    jsr rand_below
    sta target_r
    rts

; Chaser 1 goes for the player, chaser 2 for four tiles ahead of the player,
; chaser 3 for the player only while far away, else for its corner.
ai_chase:
    lda ent_x
    lsr
    lsr
    lsr
    sta target_c
    lda ent_y
    lsr
    lsr
    lsr
    sta target_r
    cpx #2
    beq @ambush
    bcc @done
    ; chaser 3
    lda ent_x,x
    lsr
    lsr
    lsr
    sec
    sbc target_c
    bcs @far_x
    eor #$FF
    adc #1
@far_x:
    cmp #8
    bcs @done
    jmp ai_scatter
@ambush:
    ldy ent_dir
    lda dir_dc,y
    asl
    asl
    clc
    adc target_c
    sta target_c
    lda dir_dr,y
    asl
    asl
    clc
    adc target_r
    sta target_r
    ; keep the target on the map so distances stay meaningful
    lda target_c
    cmp #32
    bcc @col_ok
    and #$80
    beq @col_hi
    lda #0
    beq @col_set
@col_hi:
    lda #31
@col_set:
    sta target_c
@col_ok:
    lda target_r
    cmp #MAZE_H
    bcc @done
    and #$80
    beq @row_hi
    lda #0
    beq @row_set
@row_hi:
    lda #MAZE_H - 1
@row_set:
    sta target_r
@done:
    rts

check_collisions:
    ldx #1
@loop:
    lda ent_x,x
    sec
    sbc ent_x
    bcs @dx
    eor #$FF
    adc #1
@dx:
    cmp #6
    bcs @next
    lda ent_y,x
    sec
    sbc ent_y
    bcs @dy
    eor #$FF
    adc #1
@dy:
    cmp #6
    bcs @next
    lda ent_mode,x
    beq @caught
    ; A scared chaser is sent home.
    lda start_c,x
    asl
    asl
    asl
    sta ent_x,x
    lda start_r,x
    asl
    asl
    asl
    sta ent_y,x
    lda #0
    sta ent_mode,x
    stx ent_i
    lda #200
    jsr add_score
    ldx ent_i
@next:
    inx
    cpx #NUM_ENT
    bne @loop
    rts
@caught:
    lda #60
    sta state_timer
    lda #ST_DYING
    sta state
    rts

st_dying:
    ; The player blinks, then a life is lost.
    lda state_timer
    and #4
    beq @visible
    lda #$FF
    sta oam
@visible:
    dec state_timer
    bne @done
    dec lives
    lda hud_dirty
    ora #HUD_LIVES
    sta hud_dirty
    jsr draw_hud
    lda lives
    beq @over
    jmp start_ready
@over:
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
    lda #180
    sta state_timer
    lda #ST_OVER
    sta state
    QUEUE_AT 10, 28, str_game_over
@done:
    rts

st_clear:
    dec state_timer
    bne @done
    inc level
    lda #ST_LEVEL_INIT
    sta state
@done:
    rts

st_over:
    dec state_timer
    beq @to_title
    lda state_timer
    cmp #120
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
; Drawing

draw_entities:
    ldx #0
    ldy #0
@ent:
    lda ent_y,x
    clc
    adc #MAZE_ROW0 * 8 - 1
    sta oam,y
    lda ent_x,x
    sta oam+3,y
    cpx #0
    bne @chaser
    lda #T_PLAYER
    sta oam+1,y
    lda #0
    sta oam+2,y
    beq @next
@chaser:
    lda ent_mode,x
    beq @normal
    lda #T_SCARED
    sta oam+1,y
    lda #0
    sta oam+2,y
    beq @next
@normal:
    lda freeze_timer
    bne @still
    lda frame
    and #8
    bne @still
    lda #T_CHASER2
    bne @tile
@still:
    lda #T_CHASER1
@tile:
    sta oam+1,y
    txa
    sta oam+2,y
@next:
    iny
    iny
    iny
    iny
    inx
    cpx #NUM_ENT
    bne @ent
    rts

draw_hud:
    lda hud_dirty
    bne @dirty
    rts
@dirty:
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
    NTXY 16, 2
    lda #2
    jsr vb_digits
@no_level:
    lda hud_dirty
    and #HUD_FREEZE
    beq @no_freeze
    NTXY 23, 2
    lda #1
    jsr vb_start
    lda freeze_charges
    clc
    adc #'0'
    jsr vb_put
@no_freeze:
    lda hud_dirty
    and #HUD_LIVES
    beq @clean
    NTXY 26, 2
    lda #5
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
    cpy #5
    bne @heart
@clean:
    lda #0
    sta hud_dirty
    rts

.segment "RAMCODE"

; Runs at $0600. A = column (0-31), Y = row (0-23) -> A = maze map character.
; Points the operand of its own `lda abs,y` at the row, then indexes the column.
; Clobbers Y.
map_at:
    sta map_col
    tya
    lsr
    lsr
    lsr
    clc
    adc #>maze_map
    sta map_load+2
    tya
    asl
    asl
    asl
    asl
    asl
    clc
    adc #<maze_map
    sta map_load+1
    bcc @ready
    inc map_load+2
@ready:
    ldy map_col
map_load:
    lda maze_map,y              ; operand rewritten above
    rts

.segment "RODATA"

palette:
    .byte $0F, $30, $12, $27,  $0F, $02, $21, $27
    .byte $0F, $30, $12, $27,  $0F, $30, $12, $27
    .byte $0F, $0F, $12, $28,  $0F, $16, $30, $12
    .byte $0F, $25, $30, $12,  $0F, $2C, $30, $12

dir_buttons: .byte BTN_UP, BTN_RIGHT, BTN_DOWN, BTN_LEFT
dir_dc:      .byte 0, 1, 0, <-1
dir_dr:      .byte <-1, 0, 1, 0
bit_mask:    .byte $80, $40, $20, $10, $08, $04, $02, $01

; Start tiles and directions: player, then chasers 1-3.
start_c:     .byte 15, 15, 16, 16
start_r:     .byte 20, 10, 10, 12
start_dir:   .byte 3, 3, 1, 2
corner_c:    .byte 0, 30, 1, 30
corner_r:    .byte 0, 0, 0, 23
parade_gap:  .byte 0, 24, 36, 48

; 32 x 24 map: '#' wall, '.' pellet, 'o' big pellet.
maze_map:
    .byte "################################"
    .byte "#o.....#................#.....o#"
    .byte "#.###..#.######..######.#..###.#"
    .byte "#.###.##.######..######.##.###.#"
    .byte "#..............................#"
    .byte "#.###.#.####.######.####.#.###.#"
    .byte "#.....#....#........#....#.....#"
    .byte "#####.####.#.######.#.####.#####"
    .byte "#####.#.......#..#.......#.#####"
    .byte "#####.#.###.#.#..#.#.###.#.#####"
    .byte "#.......#.....#..#.....#.......#"
    .byte "#.#####.#.#####..#####.#.#####.#"
    .byte "#.#.........#......#.........#.#"
    .byte "#.#.#######.#.####.#.#######.#.#"
    .byte "#...#.....#..........#.....#...#"
    .byte "###.#.###.#.###..###.#.###.#.###"
    .byte "#.....#.....#......#.....#.....#"
    .byte "#.###.#.###.#.#..#.#.###.#.###.#"
    .byte "#o..#...#.....#..#.....#...#..o#"
    .byte "###.#.#####.###..###.#####.#.###"
    .byte "#.....#..................#.....#"
    .byte "#.#######.#####..#####.#######.#"
    .byte "#..............................#"
    .byte "################################"

str_title:     .byte "M A Z E   C H A S E", 0
str_press:     .byte "PRESS START", 0
str_blank11:   .byte "           ", 0
str_help1:     .byte "D-PAD: MOVE   B: DASH", 0
str_help2:     .byte "A: FREEZE THE CHASERS", 0
str_best:      .byte "BEST ", 0
str_score:     .byte "SCORE", 0
str_level:     .byte "LV", 0
str_freeze:    .byte "FRZ", 0
str_ready:     .byte "   READY!   ", 0
str_blank12:   .byte "            ", 0
str_clear:     .byte "LEVEL CLEAR!", 0
str_game_over: .byte " GAME  OVER ", 0
