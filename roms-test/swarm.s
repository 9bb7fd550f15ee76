; swarm.s - SWARM: thirty-one bugs fly round a walled field, bounce off the walls and off
; each other, and the player tags as many as possible in 60 seconds.
;
; Title: S W A R M over the field, the swarm flying in attract mode with the player
; steered by a figure-of-eight autopilot, blinking PRESS START. Play: d-pad
; accelerates the player, A held = boost, B cycles the swarm's behaviour (FLOCK:
; each bug keeps near its nearest neighbour; FLEE: bugs near the player run away;
; HUNT: bugs home in on the player). Touching an untagged bug tags it (it turns
; orange) for a point. When the timer reaches zero: TIME UP, then the title.
;
; This is one of the busy workloads: the CPU is kept working for the whole frame,
; as in a real game, instead of waiting for the NMI in a one-edge spin loop. Every
; frame moves all bugs (16-bit velocity, speed clamp, four wall tests), sorts them
; into a grid of 16x16-pixel cells (linked lists), tests every pair in the same and
; neighbouring cells for a collision (elastic velocity swap) and builds OAM in a
; rotating order, so lines with more than eight sprites flicker instead of losing
; the same bugs. The time left until the NMI is spent in finish_frame on the bugs'
; AI, time-sliced: each slice scans all bugs for one bug's nearest neighbour and
; picks its steering for later frames. The scan runs from RAM ($0600) and is
; patched with the bug's own index and position before each run. How many slices fit depends on how long the
; frame's fixed work took, so the AI runs faster when fewer bugs collide.
;
; Control flow the profiler should see: RTS-trick state dispatch (run_state) and
; behaviour dispatch (ai_steer); nested linked-list walks with data-dependent trip
; counts (collide_all); absolute differences and a running minimum (ai_slice); a
; branch ladder of wall tests (move_all); bin_to_dec every frame for the HUD;
; self-modifying RAM code (ai_scan), patched up to ~15 times per frame.

.include "common/nes.inc"
.include "common/runtime.inc"

NUM_OBJ   = 32                  ; object 0 is the player, 1-31 are bugs
XMIN      = 8                   ; sprite x range inside the walls
XMAX      = 232
YMIN      = 31                  ; sprite y range (OAM y is one line above the sprite)
YMAX      = 207
GRID_W    = 16                  ; 16 x 13 cells of 16 x 16 pixels (y < 208)
GRID_CELLS = GRID_W * 13
BUG_ACC   = 10                  ; steering, 1/256 pixel per frame per frame
PLAYER_ACC = 24
BUG_VMAX  = 2                   ; bug speed limit: |v| <= $01C0
GAME_SECS = 60

ST_TITLE_INIT = 0
ST_TITLE      = 1
ST_PLAY_INIT  = 2
ST_PLAY       = 3
ST_OVER       = 4

MODE_FLOCK = 0
MODE_FLEE  = 1
MODE_HUNT  = 2
NUM_MODES  = 3

HUD_SCORE = $01
HUD_TIME  = $02
HUD_MODE  = $04

.segment "ZEROPAGE"
state:      .res 1
mode:       .res 1
score:      .res 2
best:       .res 2
hits:       .res 2              ; bug-bug collisions this game
time_sec:   .res 1
tick:       .res 1
over_timer: .res 1
hud_dirty:  .res 1
ai_next:    .res 1              ; bug whose AI the next slice computes
ai_self:    .res 1
near_d:     .res 1
near_i:     .res 1
rot:        .res 1              ; first object written to OAM this frame
ci:         .res 1              ; collide_all: current pair
cj:         .res 1
nb:         .res 1              ; neighbour cell counter
pdx:        .res 1
pdy:        .res 1
acc:        .res 1
vlim:       .res 1
dest_x:     .res 1              ; autopilot target
dest_y:     .res 1

.segment "BSS"
ox_lo:   .res NUM_OBJ
ox_hi:   .res NUM_OBJ
oy_lo:   .res NUM_OBJ
oy_hi:   .res NUM_OBJ
ovx_lo:  .res NUM_OBJ
ovx_hi:  .res NUM_OBJ
ovy_lo:  .res NUM_OBJ
ovy_hi:  .res NUM_OBJ
oax:     .res NUM_OBJ           ; steering chosen by the AI, signed
oay:     .res NUM_OBJ
onear:   .res NUM_OBJ           ; nearest neighbour found by the AI
otag:    .res NUM_OBJ
onext:   .res NUM_OBJ           ; grid list link, $FF ends a list
ocell:   .res NUM_OBJ           ; grid cell of each object
cell_head: .res GRID_CELLS

.segment "CODE"

main:
    lda #ST_TITLE_INIT
    sta state
main_loop:
    jsr read_pad
    jsr run_state
    jsr finish_frame
    jmp main_loop

; Like wait_nmi, but the wait is spent on AI slices. OAM and the VRAM queue are
; complete when nmi_ready is set, and the slices touch neither.
finish_frame:
    lda #1
    sta nmi_ready
@slice:
    jsr ai_slice
    lda nmi_ready
    bne @slice
    rts

; State dispatch with the RTS trick (push handler-1, rts).
run_state:
    ldx state
    lda state_hi,x
    pha
    lda state_lo,x
    pha
    rts

state_lo: .lobytes title_init-1, title_run-1, play_init-1, play_run-1, over_run-1
state_hi: .hibytes title_init-1, title_run-1, play_init-1, play_run-1, over_run-1

; ---------------------------------------------------------------------------
; Screen setup

; Walls on rows 3 and 27 and columns 0 and 31, dotted floor inside, blank HUD rows.
draw_field:
    SET_VADDR 0, 0
    lda #T_BLANK
    ldx #96
@top:
    sta PPUDATA
    dex
    bne @top
    lda #T_WALL
    ldx #32
@wall1:
    sta PPUDATA
    dex
    bne @wall1
    ldy #23                     ; rows 4-26
@row:
    lda #T_WALL
    sta PPUDATA
    ldx #30
    lda #T_CHECK
@dots:
    sta PPUDATA
    dex
    bne @dots
    lda #T_WALL
    sta PPUDATA
    dey
    bne @row
    ldx #32
@wall2:
    sta PPUDATA
    dex
    bne @wall2
    lda #T_BLANK
    ldx #64
@bottom:
    sta PPUDATA
    dex
    bne @bottom
    ldx #64
    lda #0
@attr:
    sta PPUDATA
    dex
    bne @attr
    rts

; Scatters the bugs at random positions with random velocities; the player starts
; in the middle. Tags, steering and the AI cursor are cleared.
init_swarm:
    ldx #NUM_OBJ - 1
@obj:
    stx tmp2
    jsr rand
    and #$7F
    clc
    adc #50
    ldx tmp2
    sta ox_hi,x
    jsr rand
    and #$7F
    clc
    adc #50
    ldx tmp2
    sta oy_hi,x
    jsr rand
    ldx tmp2
    sta ovx_lo,x
    and #$01
    beq @vx_pos
    lda #$FF
@vx_pos:
    sta ovx_hi,x
    jsr rand
    ldx tmp2
    sta ovy_lo,x
    and #$02
    beq @vy_pos
    lda #$FF
@vy_pos:
    sta ovy_hi,x
    lda #0
    sta ox_lo,x
    sta oy_lo,x
    sta oax,x
    sta oay,x
    sta otag,x
    sta onear,x
    dex
    bpl @obj
    lda #120
    sta ox_hi
    sta oy_hi
    lda #0
    sta ovx_lo
    sta ovx_hi
    sta ovy_lo
    sta ovy_hi
    lda #1
    sta ai_next
    rts

common_init:
    jsr ppu_off
    SET_PTR0 palette
    jsr load_palette
    jsr draw_field
    jsr hide_sprites
    jsr init_swarm
    lda #MODE_FLOCK
    sta mode
    lda #0
    sta score
    sta score+1
    sta hits
    sta hits+1
    rts

title_init:
    jsr common_init
    PRINT_AT 11, 1, str_title
    PRINT_AT 10, 28, str_press
    PRINT_AT 11, 29, str_best
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
    PRINT_AT 1, 1, str_score
    PRINT_AT 13, 1, str_hits
    PRINT_AT 24, 1, str_time
    PRINT_AT 1, 28, str_mode
    PRINT_AT 17, 28, str_help
    lda #GAME_SECS
    sta time_sec
    lda #60
    sta tick
    lda #HUD_SCORE | HUD_TIME | HUD_MODE
    sta hud_dirty
    lda #ST_PLAY
    sta state
    jmp ppu_on

; ---------------------------------------------------------------------------
; States

title_run:
    jsr autopilot
    jsr simulate
    ; the attract swarm untags itself every 512 frames so tagging stays visible
    lda frame
    bne @blink
    lda frame+1
    and #1
    bne @blink
    ldx #NUM_OBJ - 1
    lda #0
@untag:
    sta otag,x
    dex
    bpl @untag
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
    jsr player_control
    jsr handle_buttons
    jsr simulate
    jsr count_down
    jmp draw_hud

over_run:
    lda #0
    sta oax
    sta oay
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

; The d-pad becomes the player's acceleration; A held doubles it.
player_control:
    lda #PLAYER_ACC
    ldx pad
    bpl @no_boost
    asl
@no_boost:
    sta acc
    ldx #0
    lda pad
    and #BTN_LEFT
    beq @not_left
    lda #0
    sec
    sbc acc
    tax
@not_left:
    lda pad
    and #BTN_RIGHT
    beq @not_right
    ldx acc
@not_right:
    stx oax
    ldx #0
    lda pad
    and #BTN_UP
    beq @not_up
    lda #0
    sec
    sbc acc
    tax
@not_up:
    lda pad
    and #BTN_DOWN
    beq @not_down
    ldx acc
@not_down:
    stx oay
    rts

handle_buttons:
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

; Title: the player chases a point that runs along a figure of eight, and the bug
; behaviour changes every 4 s.
autopilot:
    lda frame
    lsr
    lsr
    and #$0F
    tax
    lda sine16,x
    cmp #$80
    ror
    clc
    adc #120
    sta dest_x
    lda frame
    lsr
    and #$0F
    tax
    lda sine16,x
    cmp #$80
    ror
    cmp #$80
    ror
    clc
    adc #118
    sta dest_y
    ldx #PLAYER_ACC
    lda ox_hi
    cmp dest_x
    bcc @right
    ldx #<-PLAYER_ACC
@right:
    stx oax
    ldx #PLAYER_ACC
    lda oy_hi
    cmp dest_y
    bcc @down
    ldx #<-PLAYER_ACC
@down:
    stx oay
    lda frame
    bne @done
    ldx mode
    inx
    cpx #NUM_MODES
    bcc @keep
    ldx #0
@keep:
    stx mode
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
    QUEUE_AT 12, 15, str_time_up
@done:
    rts

; ---------------------------------------------------------------------------
; One frame of the swarm: move, grid, collide, sprites.

simulate:
    jsr move_all
    jsr build_grid
    jsr collide_all
    inc rot
    lda rot
    cmp #NUM_OBJ
    bcc @rot_ok
    lda #0
    sta rot
@rot_ok:
    jmp draw_sprites

; Adds each object's steering to its velocity, clamps the speed, moves it and
; bounces it off the four walls. The player (object 0) has its own friction and a
; higher speed limit.
move_all:
    ldx #NUM_OBJ - 1
@obj:
    lda #BUG_VMAX
    cpx #0
    bne @is_bug
    lda #3                      ; player limit |v| <= $02C0
    ldy oax
    bne @is_bug
    ldy oay
    bne @is_bug
    jsr player_friction
    lda #3
@is_bug:
    sta vlim
    ; vx += sign-extended oax, then clamp
    lda oax,x
    jsr add_x_steer
    lda oay,x
    jsr add_y_steer
    ; x += vx
    clc
    lda ox_lo,x
    adc ovx_lo,x
    sta ox_lo,x
    lda ox_hi,x
    adc ovx_hi,x
    sta ox_hi,x
    cmp #XMIN
    bcs @not_left
    lda #XMIN
    sta ox_hi,x
    jsr bounce_x
    jmp @vertical
@not_left:
    cmp #XMAX
    bcc @vertical
    lda #XMAX - 1
    sta ox_hi,x
    jsr bounce_x
@vertical:
    clc
    lda oy_lo,x
    adc ovy_lo,x
    sta oy_lo,x
    lda oy_hi,x
    adc ovy_hi,x
    sta oy_hi,x
    cmp #YMIN
    bcs @not_top
    lda #YMIN
    sta oy_hi,x
    jsr bounce_y
    jmp @next
@not_top:
    cmp #YMAX
    bcc @next
    lda #YMAX - 1
    sta oy_hi,x
    jsr bounce_y
@next:
    dex
    bmi @done
    jmp @obj
@done:
    rts

; Velocity X += A (signed), then |vx| is kept below vlim (whole pixels).
add_x_steer:
    ldy #0
    ora #0
    beq @clamp
    bpl @pos
    dey
@pos:
    clc
    adc ovx_lo,x
    sta ovx_lo,x
    tya
    adc ovx_hi,x
    sta ovx_hi,x
@clamp:
    lda ovx_hi,x
    bmi @neg
    cmp vlim
    bcc @ok
    ldy vlim                    ; too fast: (vlim-1).$C0
    dey
    tya
    sta ovx_hi,x
    lda #$C0
    sta ovx_lo,x
    rts
@neg:
    eor #$FF                    ; -1 -> 0, -2 -> 1 ...
    cmp vlim
    bcc @ok
    lda #0                      ; too fast: -(vlim-1).$C0
    sec
    sbc vlim
    sta ovx_hi,x
    lda #$40
    sta ovx_lo,x
@ok:
    rts

add_y_steer:
    ldy #0
    ora #0
    beq @clamp
    bpl @pos
    dey
@pos:
    clc
    adc ovy_lo,x
    sta ovy_lo,x
    tya
    adc ovy_hi,x
    sta ovy_hi,x
@clamp:
    lda ovy_hi,x
    bmi @neg
    cmp vlim
    bcc @ok
    ldy vlim                    ; too fast: (vlim-1).$C0
    dey
    tya
    sta ovy_hi,x
    lda #$C0
    sta ovy_lo,x
    rts
@neg:
    eor #$FF
    cmp vlim
    bcc @ok
    lda #0                      ; too fast: -(vlim-1).$C0
    sec
    sbc vlim
    sta ovy_hi,x
    lda #$40
    sta ovy_lo,x
@ok:
    rts

; The player glides to a stop when the d-pad is released: v -= v/16 per axis
; (arithmetic shifts, so the sign is kept).
player_friction:
    lda ovx_hi
    sta tmp1
    lda ovx_lo
    sta tmp0
    ldy #4
@shx:
    lda tmp1
    cmp #$80
    ror tmp1
    ror tmp0
    dey
    bne @shx
    sec
    lda ovx_lo
    sbc tmp0
    sta ovx_lo
    lda ovx_hi
    sbc tmp1
    sta ovx_hi
    lda ovy_hi
    sta tmp1
    lda ovy_lo
    sta tmp0
    ldy #4
@shy:
    lda tmp1
    cmp #$80
    ror tmp1
    ror tmp0
    dey
    bne @shy
    sec
    lda ovy_lo
    sbc tmp0
    sta ovy_lo
    lda ovy_hi
    sbc tmp1
    sta ovy_hi
    rts

; Reverses vx / vy of object X.
bounce_x:
    sec
    lda #0
    sbc ovx_lo,x
    sta ovx_lo,x
    lda #0
    sbc ovx_hi,x
    sta ovx_hi,x
    rts

bounce_y:
    sec
    lda #0
    sbc ovy_lo,x
    sta ovy_lo,x
    lda #0
    sbc ovy_hi,x
    sta ovy_hi,x
    rts

; Every object into the linked list of its 16x16 cell.
build_grid:
    lda #$FF
    ldx #GRID_CELLS - 1
@clear:
    sta cell_head,x
    dex
    bne @clear
    sta cell_head
    ldx #NUM_OBJ - 1
@insert:
    lda oy_hi,x
    and #$F0                    ; row * 16
    sta tmp0
    lda ox_hi,x
    lsr
    lsr
    lsr
    lsr
    ora tmp0
    sta ocell,x
    tay
    lda cell_head,y
    sta onext,x
    txa
    sta cell_head,y
    dex
    bpl @insert
    rts

; Tests every pair of objects that share a cell or sit in neighbouring cells: for
; each object, the rest of its own cell's list, then the whole lists of the cells
; to its right, down-left, down and down-right, so each pair is visited once.
collide_all:
    ldx #NUM_OBJ - 1
@obj:
    stx ci
    lda onext,x
@same:
    cmp #$FF
    beq @neighbours
    sta cj
    jsr pair_test
    ldx cj
    lda onext,x
    jmp @same
@neighbours:
    lda #3
    sta nb
@nb:
    ldx nb
    ldy ci
    lda ocell,y
    and #GRID_W - 1
    cmp nb_col_limit,x          ; no right neighbour in the last column,
    beq @nb_next                ; no down-left neighbour in column 0
    lda ocell,y
    clc
    adc nb_offset,x
    cmp #GRID_CELLS
    bcs @nb_next                ; below the last row
    tax
    lda cell_head,x
@nb_list:
    cmp #$FF
    beq @nb_next
    sta cj
    jsr pair_test
    ldx cj
    lda onext,x
    jmp @nb_list
@nb_next:
    dec nb
    bpl @nb
    ldx ci
    dex
    bpl @obj
    rts

nb_offset:    .byte 1, GRID_W - 1, GRID_W, GRID_W + 1
nb_col_limit: .byte GRID_W - 1, 0, $FF, GRID_W - 1

; Objects ci and cj: if their 8x8 boxes overlap, the player tags a bug, or two
; bugs that are moving towards each other swap velocities.
pair_test:
    ldx ci
    ldy cj
    lda ox_hi,x
    sec
    sbc ox_hi,y
    sta pdx
    bpl @dx_pos
    eor #$FF
    clc
    adc #1
@dx_pos:
    cmp #8
    bcs @miss
    lda oy_hi,x
    sec
    sbc oy_hi,y
    sta pdy
    bpl @dy_pos
    eor #$FF
    clc
    adc #1
@dy_pos:
    cmp #8
    bcs @miss
    cpx #0
    beq @tag_y
    cpy #0
    beq @tag_x
    ; Approaching if dx and (vx_i - vx_j) differ in sign, or the same for y.
    sec
    lda ovx_lo,x
    sbc ovx_lo,y
    lda ovx_hi,x
    sbc ovx_hi,y
    eor pdx
    bmi @swap
    sec
    lda ovy_lo,x
    sbc ovy_lo,y
    lda ovy_hi,x
    sbc ovy_hi,y
    eor pdy
    bmi @swap
@miss:
    rts
@swap:
    inc hits
    bne :+
    inc hits+1
:   jmp swap_velocity
@tag_x:
    tya
    tax
@tag_y:
    ; X is the player; tag bug Y
    lda otag,y
    bne @miss
    lda #1
    sta otag,y
    inc score
    bne :+
    inc score+1
:   lda hud_dirty
    ora #HUD_SCORE
    sta hud_dirty
    rts

; Exchanges the velocities of objects X and Y.
swap_velocity:
    lda ovx_lo,x
    pha
    lda ovx_lo,y
    sta ovx_lo,x
    pla
    sta ovx_lo,y
    lda ovx_hi,x
    pha
    lda ovx_hi,y
    sta ovx_hi,x
    pla
    sta ovx_hi,y
    lda ovy_lo,x
    pha
    lda ovy_lo,y
    sta ovy_lo,x
    pla
    sta ovy_lo,y
    lda ovy_hi,x
    pha
    lda ovy_hi,y
    sta ovy_hi,x
    pla
    sta ovy_hi,y
    rts

; OAM in rotating object order starting at `rot`: player face, bugs with two
; animation frames, tagged bugs in palette 1.
draw_sprites:
    ldy #0
    ldx rot
@obj:
    lda oy_hi,x
    sta oam,y
    cpx #0
    bne @bug
    lda #T_PLAYER
    sta oam+1,y
    lda #2
    bne @attr
@bug:
    txa
    asl
    asl
    adc frame
    and #$08
    lsr
    lsr
    lsr
    clc
    adc #T_CHASER1
    sta oam+1,y
    lda otag,x
    beq @untagged
    lda #1
    bne @flip
@untagged:
    lda #0
@flip:
    sta tmp0
    lda ovx_hi,x
    and #$40                    ; facing left: flip horizontally
    ora tmp0
@attr:
    sta oam+2,y
    lda ox_hi,x
    sta oam+3,y
    iny
    iny
    iny
    iny
    inx
    cpx #NUM_OBJ
    bcc @no_wrap
    ldx #0
@no_wrap:
    cpx rot
    bne @obj
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
    lda hits
    sta num
    lda hits+1
    sta num+1
    jsr bin_to_dec
    NTXY 18, 1
    lda #5
    jsr vb_digits
    lda hud_dirty
    beq @done
    lsr
    bcc @no_score
    lda score
    sta num
    lda score+1
    sta num+1
    jsr bin_to_dec
    NTXY 7, 1
    lda #3
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
    NTXY 29, 1
    lda #2
    jsr vb_digits
@no_time:
    lda hud_dirty
    and #HUD_MODE
    beq @clean
    lda mode
    asl
    tax
    lda mode_names,x
    sta ptr0
    lda mode_names+1,x
    sta ptr0+1
    NTXY 6, 28
    jsr vb_print
@clean:
    lda #0
    sta hud_dirty
@done:
    rts

; ---------------------------------------------------------------------------
; Background AI, run while waiting for the NMI: one bug per slice.

; Finds the nearest other object to bug ai_next (Manhattan distance, by ai_scan in
; RAM), then lets the current behaviour pick the bug's steering.
ai_slice:
    ldx ai_next
    stx ai_self
    inx
    cpx #NUM_OBJ
    bcc @cursor
    ldx #1
@cursor:
    stx ai_next
    ldx ai_self
    lda #$FF
    sta near_d
    lda #0
    sta near_i
    lda ox_hi,x                 ; patch the RAM scan for this bug
    sta self_x_op+1
    lda oy_hi,x
    sta self_y_op+1
    stx skip_op+1
    jsr ai_scan
    ldx ai_self
    lda near_i
    sta onear,x
    ; fall into ai_steer

; Behaviour dispatch with the RTS trick; each handler sets oax/oay of bug X.
ai_steer:
    ldy mode
    lda steer_hi,y
    pha
    lda steer_lo,y
    pha
    rts

steer_lo: .lobytes steer_flock-1, steer_flee-1, steer_hunt-1
steer_hi: .hibytes steer_flock-1, steer_flee-1, steer_hunt-1

; Keep 16-32 pixels from the nearest neighbour: too close, steer away; too far,
; steer towards it; in between, coast.
steer_flock:
    ldy near_i
    lda near_d
    cmp #16
    bcc @away
    cmp #32
    bcs @toward
    lda #0
    sta oax,x
    sta oay,x
    rts
@away:
    lda #<-BUG_ACC
    jmp steer_rel
@toward:
    lda #BUG_ACC
    jmp steer_rel

; Run from the player when within 64 pixels, otherwise flock.
steer_flee:
    lda ox_hi
    sec
    sbc ox_hi,x
    bcs :+
    eor #$FF
    adc #1
:   sta tmp0
    lda oy_hi
    sec
    sbc oy_hi,x
    bcs :+
    eor #$FF
    adc #1
:   clc
    adc tmp0
    bcs steer_flock
    cmp #64
    bcs steer_flock
    ldy #0
    lda #<-(BUG_ACC * 2)
    jmp steer_rel

; Home in on the player; a bug that is already tagged circles its neighbour.
steer_hunt:
    lda otag,x
    bne steer_flock
    ldy #0
    lda #BUG_ACC
    ; falls into steer_rel

; Steering of bug X relative to object Y: A (signed) towards Y on each axis.
steer_rel:
    sta acc
    lda ox_hi,y
    cmp ox_hi,x
    beq @x_zero
    lda acc
    bcs @x_set
    eor #$FF
    clc
    adc #1
    jmp @x_set
@x_zero:
    lda #0
@x_set:
    sta oax,x
    lda oy_hi,y
    cmp oy_hi,x
    beq @y_zero
    lda acc
    bcs @y_set
    eor #$FF
    clc
    adc #1
    jmp @y_set
@y_zero:
    lda #0
@y_set:
    sta oay,x
    rts

.segment "RAMCODE"

; Runs at $0600. Scans every object for the one nearest to the bug being
; thought about. ai_slice rewrites the immediate operands of `skip_op` (the bug's
; own index) and of the two `sbc #imm` (the bug's x and y) before every run, so
; the loop compares against constants instead of indexed loads.
ai_scan:
    ldy #NUM_OBJ - 1
as_loop:
skip_op:
    cpy #$00
    beq as_skip
    lda ox_hi,y
    sec
self_x_op:
    sbc #$00
    bcs as_dx_pos
    eor #$FF
    adc #1
as_dx_pos:
    sta tmp0
    lda oy_hi,y
    sec
self_y_op:
    sbc #$00
    bcs as_dy_pos
    eor #$FF
    adc #1
as_dy_pos:
    clc
    adc tmp0
    bcs as_skip                 ; farther than 255
    cmp near_d
    bcs as_skip
    sta near_d
    sty near_i
as_skip:
    dey
    bpl as_loop
    rts

.segment "RODATA"

palette:
    .byte $0F, $00, $1C, $10,  $0F, $00, $1C, $10
    .byte $0F, $00, $1C, $10,  $0F, $00, $1C, $10
    .byte $0F, $2A, $0F, $30,  $0F, $27, $0F, $30
    .byte $0F, $0F, $00, $28,  $0F, $16, $27, $30

sine16:
    .byte 0, 49, 90, 117, 127, 117, 90, 49
    .byte 0, <-49, <-90, <-117, <-127, <-117, <-90, <-49

mode_names: .addr name_flock, name_flee, name_hunt
name_flock: .byte "FLOCK", 0
name_flee:  .byte "FLEE ", 0
name_hunt:  .byte "HUNT ", 0

str_title:     .byte "S W A R M", 0
str_press:     .byte "PRESS START", 0
str_press_off: .byte "           ", 0
str_best:      .byte "BEST ", 0
str_score:     .byte "SCORE", 0
str_hits:      .byte "HITS", 0
str_time:      .byte "TIME", 0
str_mode:      .byte "MODE", 0
str_help:      .byte "A:BOOST B:MODE", 0
str_time_up:   .byte "TIME UP!", 0
