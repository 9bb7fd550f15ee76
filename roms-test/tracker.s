; tracker.s - TRACKER: a four-channel music engine driving the APU, with a note and
; volume display and an oscilloscope computed by a small bytecode interpreter.
;
; Three songs of our own (MARCH, NOCTURNE, BOOGIE). Each channel (two pulses,
; triangle, noise) walks an order list of patterns; a pattern is a byte code of
; notes, rests, duration and instrument changes. Every frame each channel steps
; its instrument's volume envelope and arpeggio, adds vibrato and writes its APU
; registers. The screen shows, per channel, the sounding note (sharps written CS, FS, ...) and a 16-step volume
; bar, and below them an oscilloscope of the mixed channels drawn with 32 sprites.
; Title: T R A C K E R, the current song playing, blinking PRESS START. Play: a
; 90-second session. Left/right changes the song, up/down the tempo, A the key
; (0, 2, 5 or 7 semitones up), B mutes parts (NONE, DRUMS, BASS, or SOLO: lead
; only). When the time is up the music fades out (THE END), then the title.
;
; This is one of the busy workloads. The music and display take a few thousand
; cycles a frame; the rest of the frame, in finish_frame, runs the scope program
; on a bytecode interpreter: an accumulator machine with twenty registers and
; twelve opcodes (load, store, add, waveform lookup, volume scaling through a
; product table, output, loops, a system call that snapshots the channels). The
; program yields after each of its 32 columns, so the scope redraws as often as
; the spare time allows, as in a game that runs a script engine in its idle time.
;
; Control flow the profiler should see: RTS-trick dispatch of game states
; (run_state), pattern commands (row_command), per-channel register writers
; (write_channel) and interpreter opcodes (vm_next); a per-channel loop calling
; the envelope/arpeggio/vibrato code; div8 for note names; mul8 and div8 building
; the volume product table at power-on. Self-modifying RAM code: the interpreter's
; fetch loop runs at $0600 and the address operands of its two `lda abs,y`
; instructions are rewritten to the song's scope program whenever a song starts.

.include "common/nes.inc"
.include "common/runtime.inc"

NUM_CH     = 4
NUM_SONGS  = 3
PLAY_SECS  = 90
SCOPE_BASE = 208                ; sprite y of a silent scope column
VU_ROW0    = 7                  ; channel lines on rows 7, 9, 11, 13

ST_TITLE_INIT = 0
ST_TITLE      = 1
ST_PLAY_INIT  = 2
ST_PLAY       = 3
ST_END        = 4

HUD_SONG  = $01
HUD_TEMPO = $02
HUD_KEY   = $04
HUD_MUTE  = $08
HUD_TIME  = $10

; pattern byte code
CMD_REST = $E0
CMD_DUR  = $E1
CMD_INST = $E2
CMD_END  = $FF

; interpreter opcodes
OP_YIELD = 0
OP_LDI   = 1
OP_LD    = 2
OP_ST    = 3
OP_ADD   = 4
OP_WAVE  = 5
OP_VOL   = 6
OP_OUT   = 7
OP_INC   = 8
OP_DJNZ  = 9
OP_JMP   = 10
OP_SYS   = 11

; interpreter registers
R_P0  = 0                       ; phases of the four channels
R_S0  = 4                       ; phase steps per column (0 = silent)
R_V0  = 8                       ; volumes 0-15
R_W0  = 12                      ; waveform numbers
R_SUM = 16
R_COL = 17
R_CNT = 18
R_LANE = 19
NUM_REGS = 20

.segment "ZEROPAGE"
state:      .res 1
song:       .res 1
speed:      .res 1              ; frames per row
row_timer:  .res 1
transpose:  .res 1
key_i:      .res 1
mute:       .res 1              ; mute setting 0-3
mute_mask:  .res 1              ; bit c set = channel c silent
master:     .res 1              ; 0-15, fades at the end
time_sec:   .res 1
tick:       .res 1
end_timer:  .res 1
hud_dirty:  .res 1
chan:       .res 1              ; channel being worked on
reg_off:    .res 1              ; its APU register offset (chan * 4)
per_lo:     .res 1
per_hi:     .res 1
rot:        .res 1
vu_next:    .res 1
vm_pc:      .res 1
vm_acc:     .res 1

.segment "BSS"
ch_pat_lo:  .res NUM_CH         ; read position in the current pattern
ch_pat_hi:  .res NUM_CH
ch_order:   .res NUM_CH         ; position in the order list
ch_wait:    .res NUM_CH         ; rows until the next event
ch_dur:     .res NUM_CH
ch_inst:    .res NUM_CH
ch_note:    .res NUM_CH
ch_gate:    .res NUM_CH         ; 1 while a note sounds
ch_trig:    .res NUM_CH         ; 1 on a new note: rewrite the high period byte
ch_env:     .res NUM_CH
ch_vol:     .res NUM_CH         ; envelope volume
ch_out:     .res NUM_CH         ; volume written (after fade and mute)
ch_final:   .res NUM_CH         ; note after arpeggio and key
ch_last_hi: .res NUM_CH
ch_shown:   .res NUM_CH         ; note on screen ($FF = none)
vreg:       .res NUM_REGS
scope:      .res 32
prod:       .res 256            ; prod[v * 16 + s] = v * s / 15

.segment "CODE"

main:
    jsr build_prod
    lda #0
    sta song
    lda #ST_TITLE_INIT
    sta state
main_loop:
    jsr read_pad
    jsr run_state
    jsr finish_frame
    jmp main_loop

; Like wait_nmi, but the wait runs the scope program one column at a time. It
; writes only `scope` and its registers, never OAM or the VRAM queue.
finish_frame:
    lda #1
    sta nmi_ready
@slice:
    jsr vm_slice
    lda nmi_ready
    bne @slice
    rts

run_state:
    ldx state
    lda state_hi,x
    pha
    lda state_lo,x
    pha
    rts

state_lo: .lobytes title_init-1, title_run-1, play_init-1, play_run-1, end_run-1
state_hi: .hibytes title_init-1, title_run-1, play_init-1, play_run-1, end_run-1

; The volume product table: prod[v * 16 + s] = v * s / 15, with mul8 and div8.
build_prod:
    ldx #0
@entry:
    stx tmp2
    txa
    and #$0F
    sta tmp3
    txa
    lsr
    lsr
    lsr
    lsr
    ldy tmp3
    jsr mul8                    ; v * s < 256: the low byte is in mul_a
    lda mul_a
    ldy #15
    jsr div8
    ldx tmp2
    sta prod,x
    inx
    bne @entry
    rts

; ---------------------------------------------------------------------------
; Screen setup

common_init:
    jsr ppu_off
    SET_PTR0 palette
    jsr load_palette
    lda #T_BLANK
    ldx #0
    jsr clear_nt
    jsr hide_sprites
    PRINT_AT 9, 1, str_title
    ; channel names, with a floor line under the scope
    ldx #0
@names:
    stx tmp2
    lda ch_name_lo,x
    sta ptr0
    lda ch_name_hi,x
    sta ptr0+1
    lda ch_row_lo,x
    tay
    lda ch_row_hi,x
    tax
    jsr print_direct
    ldx tmp2
    lda #$FF
    sta ch_shown,x
    inx
    cpx #NUM_CH
    bne @names
    SET_VADDR 0, 27
    lda #T_FLOOR
    ldx #32
@floor:
    sta PPUDATA
    dex
    bne @floor
    PRINT_AT 2, 28, str_help1
    PRINT_AT 2, 29, str_help2
    lda #15
    sta master
    rts

title_init:
    jsr common_init
    jsr start_song
    lda #ST_TITLE
    sta state
    jmp ppu_on

play_init:
    jsr common_init
    PRINT_AT 2, 3, str_song
    PRINT_AT 23, 3, str_time
    PRINT_AT 2, 4, str_tempo
    PRINT_AT 12, 4, str_key
    PRINT_AT 19, 4, str_mute
    jsr start_song
    lda #PLAY_SECS
    sta time_sec
    lda #60
    sta tick
    lda #HUD_SONG | HUD_TEMPO | HUD_KEY | HUD_MUTE | HUD_TIME
    sta hud_dirty
    lda #ST_PLAY
    sta state
    jmp ppu_on

; ---------------------------------------------------------------------------
; States

title_run:
    jsr music_tick
    jsr show_channels
    jsr draw_scope
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
    lda #ST_PLAY_INIT
    sta state
@done:
    rts

play_run:
    jsr handle_input
    jsr music_tick
    jsr count_down
    jsr draw_hud
    jsr show_channels
    jmp draw_scope

end_run:
    lda frame
    and #$0F
    bne @music
    lda master
    beq @music
    dec master
@music:
    jsr music_tick
    jsr show_channels
    jsr draw_scope
    dec end_timer
    beq @to_title
    lda end_timer
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
    lda #255
    sta end_timer
    QUEUE_AT 12, 20, str_the_end
@done:
    rts

; ---------------------------------------------------------------------------
; Input

handle_input:
    lda pad_new
    and #BTN_RIGHT
    beq @not_right
    inc song
    lda song
    cmp #NUM_SONGS
    bcc @new_song
    lda #0
    sta song
    beq @new_song
@not_right:
    lda pad_new
    and #BTN_LEFT
    beq @not_left
    dec song
    bpl @new_song
    lda #NUM_SONGS - 1
    sta song
@new_song:
    jsr start_song
    lda hud_dirty
    ora #HUD_SONG | HUD_TEMPO
    sta hud_dirty
@not_left:
    lda pad_new
    and #BTN_UP
    beq @not_up
    lda speed
    cmp #4
    bcc @not_up
    dec speed
    lda hud_dirty
    ora #HUD_TEMPO
    sta hud_dirty
@not_up:
    lda pad_new
    and #BTN_DOWN
    beq @not_down
    lda speed
    cmp #14
    bcs @not_down
    inc speed
    lda hud_dirty
    ora #HUD_TEMPO
    sta hud_dirty
@not_down:
    lda pad_new
    and #BTN_A
    beq @not_a
    ldx key_i
    inx
    txa
    and #3
    sta key_i
    tax
    lda keys,x
    sta transpose
    lda hud_dirty
    ora #HUD_KEY
    sta hud_dirty
@not_a:
    lda pad_new
    and #BTN_B
    beq @done
    ldx mute
    inx
    txa
    and #3
    sta mute
    tax
    lda mute_masks,x
    sta mute_mask
    lda hud_dirty
    ora #HUD_MUTE
    sta hud_dirty
@done:
    rts

; ---------------------------------------------------------------------------
; The music engine

; Starts `song` from its first patterns, and points the interpreter at the song's
; scope program (patching the RAM fetch instructions).
start_song:
    lda #$0F
    sta APUSTATUS
    ldx song
    lda song_speed,x
    sta speed
    lda #1
    sta row_timer
    lda song_prog_lo,x
    sta vm_fetch+1
    sta vm_fetch2+1
    lda song_prog_hi,x
    sta vm_fetch+2
    sta vm_fetch2+2
    lda #0
    sta vm_pc
    ldx #NUM_CH - 1
@chan:
    lda #0
    sta ch_order,x
    sta ch_gate,x
    sta ch_vol,x
    sta ch_env,x
    sta ch_inst,x
    lda #1
    sta ch_wait,x
    sta ch_dur,x
    lda #$FF
    sta ch_last_hi,x
    stx chan
    jsr load_pattern
    ldx chan
    dex
    bpl @chan
    rts

; Points channel `chan` at the pattern its order list names at ch_order; $FF in
; the list starts it again from the top.
load_pattern:
    lda song
    asl
    asl
    ora chan
    asl
    tax
    lda song_orders,x
    sta ptr1
    lda song_orders+1,x
    sta ptr1+1
    ldx chan
    ldy ch_order,x
    lda (ptr1),y
    cmp #$FF
    bne @have
    lda #0
    sta ch_order,x
    tay
    lda (ptr1),y
@have:
    tay
    lda pat_lo,y
    sta ch_pat_lo,x
    lda pat_hi,y
    sta ch_pat_hi,x
    rts

; One frame of music: rows every `speed` frames, then every channel's sound.
music_tick:
    dec row_timer
    bne @sound
    lda speed
    sta row_timer
    ldx #NUM_CH - 1
@rows:
    stx chan
    jsr channel_row
    ldx chan
    dex
    bpl @rows
@sound:
    ldx #NUM_CH - 1
@frames:
    stx chan
    jsr channel_frame
    ldx chan
    dex
    bpl @frames
    rts

; Next byte of channel `chan`'s pattern (X = chan, kept).
pattern_byte:
    lda ch_pat_lo,x
    sta ptr1
    lda ch_pat_hi,x
    sta ptr1+1
    ldy #0
    lda (ptr1),y
    inc ch_pat_lo,x
    bne @done
    inc ch_pat_hi,x
@done:
    rts

; A row for channel `chan`: count down the current event, then read commands
; until a note or rest.
channel_row:
    ldx chan
    dec ch_wait,x
    bne row_done
row_read:
    ldx chan
    jsr pattern_byte
    cmp #CMD_REST
    bcs row_command
    sta ch_note,x               ; a note: restart the envelope
    lda #1
    sta ch_gate,x
    sta ch_trig,x
    lda #0
    sta ch_env,x
row_wait:
    lda ch_dur,x
    sta ch_wait,x
row_done:
    rts

; Commands with the RTS trick; each handler ends with row_read or row_wait.
row_command:
    cmp #CMD_END
    bne @cmd
    inc ch_order,x
    jsr load_pattern
    jmp row_read
@cmd:
    and #$03
    tay
    lda cmd_hi,y
    pha
    lda cmd_lo,y
    pha
    rts

cmd_lo: .lobytes cmd_rest-1, cmd_dur-1, cmd_inst-1
cmd_hi: .hibytes cmd_rest-1, cmd_dur-1, cmd_inst-1

cmd_rest:
    lda #0
    sta ch_gate,x
    jmp row_wait

cmd_dur:
    jsr pattern_byte
    sta ch_dur,x
    jmp row_read

cmd_inst:
    jsr pattern_byte
    sta ch_inst,x
    jmp row_read

; One frame of sound for channel `chan`: envelope, fade and mute, arpeggio and
; key, then the channel's register writer.
channel_frame:
    ldx chan
    lda ch_gate,x
    beq @silent
    ldy ch_inst,x
    lda inst_env_lo,y
    sta ptr1
    lda inst_env_hi,y
    sta ptr1+1
    ldy ch_env,x
    lda (ptr1),y
    sta ch_vol,x
    iny
    lda (ptr1),y
    cmp #$FF                    ; $FF holds the last level
    beq @volume
    inc ch_env,x
    bne @volume
@silent:
    lda #0
    sta ch_vol,x
@volume:
    lda ch_vol,x
    asl
    asl
    asl
    asl
    ora master
    tay
    lda prod,y
    sta ch_out,x
    lda mute_mask
    and chan_bit,x
    beq @audible
    lda #0
    sta ch_out,x
@audible:
    ; arpeggio: four steps, one per frame
    ldy ch_inst,x
    lda inst_arp,y
    asl
    asl
    sta tmp0
    lda frame
    and #3
    ora tmp0
    tay
    lda arp_steps,y
    clc
    adc ch_note,x
    cpx #3
    beq @no_key                 ; the noise channel's "note" is a noise period
    clc
    adc transpose
@no_key:
    sta ch_final,x
    ; fall into write_channel

; Register writer for the channel kind, with the RTS trick.
write_channel:
    txa
    asl
    asl
    sta reg_off
    lda writer_hi,x
    pha
    lda writer_lo,x
    pha
    rts

writer_lo: .lobytes write_pulse-1, write_pulse-1, write_tri-1, write_noise-1
writer_hi: .hibytes write_pulse-1, write_pulse-1, write_tri-1, write_noise-1

; Pulse: duty and constant volume, sweep off, period with vibrato. The high period
; byte is written only when it changes or a note starts (writing it restarts the
; waveform, which clicks).
write_pulse:
    ldy ch_inst,x
    lda inst_duty,y
    ora #$30
    ora ch_out,x
    ldy reg_off
    sta $4000,y
    lda #$08
    sta $4001,y
    jsr note_period
    jsr add_vibrato
    jmp write_period

; Triangle: on at full volume or off; no volume control.
write_tri:
    lda ch_out,x
    beq @off
    lda #$FF
    bne @ctrl
@off:
    lda #$80
@ctrl:
    sta $4008
    jsr note_period
    jmp write_period

; Noise: volume and period index; a new note reloads the length counter.
write_noise:
    lda ch_out,x
    ora #$30
    sta $400C
    lda ch_final,x
    and #$0F
    sta $400E
    lda ch_trig,x
    beq @done
    lda #$08
    sta $400F
    lda #0
    sta ch_trig,x
@done:
    rts

; per_lo/per_hi = period of ch_final (X = chan, kept).
note_period:
    ldy ch_final,x
    cpy #96
    bcc @in_range
    ldy #95
@in_range:
    lda period_lo,y
    sta per_lo
    lda period_hi,y
    sta per_hi
    rts

; Instruments with vibrato bend the period by up to +-3 (it falls with pitch, so
; the bend is wider on low notes as in a real vibrato table).
add_vibrato:
    ldy ch_inst,x
    lda inst_vib,y
    beq @done
    lda ch_env,x
    cmp #8                      ; starts after the attack
    bcc @done
    lda frame
    lsr
    and #7
    tay
    lda vib_wave,y
    bmi @down
    clc
    adc per_lo
    sta per_lo
    bcc @done
    inc per_hi
    rts
@down:
    clc
    adc per_lo
    sta per_lo
    bcs @done
    dec per_hi
@done:
    rts

write_period:
    ldy reg_off
    lda per_lo
    sta $4002,y
    lda per_hi
    ora #$08                    ; length counter index, held anyway
    ldx chan
    cmp ch_last_hi,x
    bne @write_hi
    lda ch_trig,x
    beq @done
    lda per_hi
    ora #$08
@write_hi:
    sta $4003,y
    sta ch_last_hi,x
    lda #0
    sta ch_trig,x
@done:
    rts

; ---------------------------------------------------------------------------
; Display

; For each channel whose note changed, its name ("CS4", "---", or the drum).
; Then two channels' volume bars (sixteen tiles), alternating.
show_channels:
    ldx #NUM_CH - 1
@note:
    stx chan
    lda vb_len
    cmp #VBUF_SIZE - 40
    bcs @next                   ; queue nearly full: try again next frame
    lda ch_gate,x
    beq @gate_off
    lda ch_final,x
    cpx #3
    bne @compare
    lda ch_inst,x
    ora #$80                    ; drums: shown by instrument
    bne @compare
@gate_off:
    lda #$FE
@compare:
    cmp ch_shown,x
    beq @next
    sta ch_shown,x
    jsr queue_note
@next:
    ldx chan
    dex
    bpl @note
    lda vu_next
    eor #1
    sta vu_next
    tax
    jsr queue_bar
    lda vu_next
    ora #2
    tax
    ; falls into queue_bar

; Sixteen tiles for channel X's volume: ch_out tiles of bar, the rest blank.
queue_bar:
    lda vb_len
    cmp #VBUF_SIZE - 19
    bcs @done
    stx chan
    lda #10
    ldy ch_row,x
    jsr nt_addr
    lda #16
    jsr vb_start
    ldx chan
    lda ch_out,x
    sta tmp0
    ldy #0
@tile:
    lda #T_SOLID2
    cpy tmp0
    bcc @put
    lda #T_BLANK
@put:
    jsr vb_put
    iny
    cpy #16
    bne @tile
@done:
    rts

; Queues the three characters of ch_shown for channel `chan`.
queue_note:
    ldx chan
    lda #6
    ldy ch_row,x
    jsr nt_addr
    lda #3
    jsr vb_start
    ldx chan
    lda ch_shown,x
    cmp #$FE
    beq @rest
    cmp #$80
    bcs @drum
    ; octave and semitone from C: (note + 9) / 12
    clc
    adc #9
    ldy #12
    jsr div8
    clc
    adc #'1'
    sta tmp1
    lda div_rem
    asl
    tax
    lda note_names,x
    jsr vb_put
    lda note_names+1,x
    jsr vb_put
    lda tmp1
    jmp vb_put
@drum:
    and #$07
    tay
    lda drum_names_lo,y
    sta ptr0
    lda drum_names_hi,y
    sta ptr0+1
    ldy #0
@drum_char:
    lda (ptr0),y
    jsr vb_put
    iny
    cpy #3
    bne @drum_char
    rts
@rest:
    lda #'-'
    jsr vb_put
    jsr vb_put
    jmp vb_put

; The scope's 32 columns as sprites, starting at a rotating column so that rows
; with more than eight dots flicker instead of always losing the same ones.
draw_scope:
    lda rot
    clc
    adc #5
    and #31
    sta rot
    tax
    ldy #0
@dot:
    lda #SCOPE_BASE
    sec
    sbc scope,x
    sta oam,y
    lda #T_SPARK
    sta oam+1,y
    lda #0
    sta oam+2,y
    txa
    asl
    asl
    asl
    sta oam+3,y
    iny
    iny
    iny
    iny
    inx
    txa
    and #31
    tax
    cpx rot
    bne @dot
    rts

draw_hud:
    lda hud_dirty
    bne @dirty
    rts
@dirty:
    lsr
    bcc @no_song
    ldx song
    lda song_name_lo,x
    sta ptr0
    lda song_name_hi,x
    sta ptr0+1
    NTXY 7, 3
    jsr vb_print
@no_song:
    lda hud_dirty
    and #HUD_TEMPO
    beq @no_tempo
    lda speed
    sta num
    lda #0
    sta num+1
    jsr bin_to_dec
    NTXY 8, 4
    lda #2
    jsr vb_digits
@no_tempo:
    lda hud_dirty
    and #HUD_KEY
    beq @no_key
    lda key_i
    asl
    tax
    lda key_names,x
    sta ptr0
    lda key_names+1,x
    sta ptr0+1
    NTXY 16, 4
    jsr vb_print
@no_key:
    lda hud_dirty
    and #HUD_MUTE
    beq @no_mute
    lda mute
    asl
    tax
    lda mute_names,x
    sta ptr0
    lda mute_names+1,x
    sta ptr0+1
    NTXY 24, 4
    jsr vb_print
@no_mute:
    lda hud_dirty
    and #HUD_TIME
    beq @clean
    lda time_sec
    sta num
    lda #0
    sta num+1
    jsr bin_to_dec
    NTXY 28, 3
    lda #2
    jsr vb_digits
@clean:
    lda #0
    sta hud_dirty
    rts

; ---------------------------------------------------------------------------
; The interpreter's opcodes. vm_slice (RAM) fetches an opcode and enters its
; handler with the RTS trick; handlers fetch operands with vm_operand and go
; back to vm_next. OP_YIELD returns from vm_slice.

op_yield:
    rts

op_ldi:
    jsr vm_operand
    sta vm_acc
    jmp vm_next

op_ld:
    jsr vm_operand
    lda vreg,x
    sta vm_acc
    jmp vm_next

op_st:
    jsr vm_operand
    lda vm_acc
    sta vreg,x
    jmp vm_next

op_add:
    jsr vm_operand
    lda vm_acc
    clc
    adc vreg,x
    sta vm_acc
    jmp vm_next

; acc = sample (0-15) of waveform reg[r] at phase acc: waves[reg * 32 + acc / 8].
op_wave:
    jsr vm_operand
    lda vreg,x
    asl
    asl
    asl
    asl
    asl
    sta tmp0
    lda vm_acc
    lsr
    lsr
    lsr
    ora tmp0
    tax
    lda waves,x
    sta vm_acc
    jmp vm_next

; acc = acc * reg[r] / 15 through the product table.
op_vol:
    jsr vm_operand
    lda vreg,x
    asl
    asl
    asl
    asl
    ora vm_acc
    tax
    lda prod,x
    sta vm_acc
    jmp vm_next

; scope[reg[r]] = acc
op_out:
    jsr vm_operand
    ldy vreg,x
    lda vm_acc
    sta scope,y
    jmp vm_next

op_inc:
    jsr vm_operand
    inc vreg,x
    jmp vm_next

; reg[r] -= 1; jump to the target while it is not zero.
op_djnz:
    jsr vm_operand
    dec vreg,x
    beq @fall
    jsr vm_operand
    sta vm_pc
    jmp vm_next
@fall:
    inc vm_pc
    jmp vm_next

op_jmp:
    jsr vm_operand
    sta vm_pc
    jmp vm_next

; System call: copy each channel's step, volume and waveform into the registers.
; A silent channel gets step 0, so its trace stays flat where it stopped.
op_sys:
    jsr vm_operand
    ldx #NUM_CH - 1
@chan:
    lda ch_out,x
    sta vreg+R_V0,x
    beq @silent
    cpx #3
    beq @noise
    ldy ch_final,x
    cpy #96
    bcc @step
    ldy #95
@step:
    lda note_step,y
    cpx #2
    bne @store
    lsr                         ; the triangle sounds an octave lower
    jmp @store
@noise:
    lda ch_final,x
    and #$0F
    eor #$0F
    asl
    asl
    asl
    ora #$07
    bne @store
@silent:
    lda #0
@store:
    sta vreg+R_S0,x
    lda wave_kind,x
    cpx #2
    bcs @kind
    ldy ch_inst,x
    lda inst_duty,y             ; pulses: 50 % duty uses the square table
    cmp #$80
    lda #0
    bcc @kind
    lda #1
@kind:
    sta vreg+R_W0,x
    dex
    bpl @chan
    jmp vm_next

op_lo: .lobytes op_yield-1, op_ldi-1, op_ld-1, op_st-1, op_add-1, op_wave-1
       .lobytes op_vol-1, op_out-1, op_inc-1, op_djnz-1, op_jmp-1, op_sys-1
op_hi: .hibytes op_yield-1, op_ldi-1, op_ld-1, op_st-1, op_add-1, op_wave-1
       .hibytes op_vol-1, op_out-1, op_inc-1, op_djnz-1, op_jmp-1, op_sys-1

.segment "RAMCODE"

; Runs at $0600. Executes scope-program instructions until OP_YIELD. The address
; operands of the two `lda abs,y` below (vm_fetch, vm_fetch2) point at the
; current song's program; start_song rewrites them.
vm_slice:
vm_next:
    ldy vm_pc
vm_fetch:
    lda prog_mix,y
    iny
    sty vm_pc
    tax
    lda op_hi,x
    pha
    lda op_lo,x
    pha
    rts

; Next program byte into A and X.
vm_operand:
    ldy vm_pc
vm_fetch2:
    lda prog_mix,y
    iny
    sty vm_pc
    tax
    rts

.segment "RODATA"

; ---------------------------------------------------------------------------
; Scope programs

; MIX: every column is the sum of the four channels' waveforms.
.macro MIX_CHANNEL c
    .byte OP_LD, R_P0 + c, OP_ADD, R_S0 + c, OP_ST, R_P0 + c
    .byte OP_WAVE, R_W0 + c, OP_VOL, R_V0 + c, OP_ADD, R_SUM, OP_ST, R_SUM
.endmacro

prog_mix:
mix_start:
    .byte OP_SYS, 0
    .byte OP_LDI, 32, OP_ST, R_CNT
    .byte OP_LDI, 0, OP_ST, R_COL
mix_column:
    .byte OP_LDI, 0, OP_ST, R_SUM
    MIX_CHANNEL 0
    MIX_CHANNEL 1
    MIX_CHANNEL 2
    MIX_CHANNEL 3
    .byte OP_LD, R_SUM, OP_OUT, R_COL, OP_INC, R_COL
    .byte OP_YIELD
    .byte OP_DJNZ, R_CNT, mix_column - prog_mix
    .byte OP_JMP, mix_start - prog_mix

; LANES: eight columns for each channel on its own, doubled in height, so the four
; waveforms sit side by side.
.macro LANE_COLUMNS c
.local column
    .byte OP_LDI, 8, OP_ST, R_LANE
column:
    .byte OP_LD, R_P0 + c, OP_ADD, R_S0 + c, OP_ST, R_P0 + c
    .byte OP_WAVE, R_W0 + c, OP_VOL, R_V0 + c, OP_ST, R_SUM, OP_ADD, R_SUM
    .byte OP_OUT, R_COL, OP_INC, R_COL
    .byte OP_YIELD
    .byte OP_DJNZ, R_LANE, column - prog_lanes
.endmacro

prog_lanes:
lanes_start:
    .byte OP_SYS, 0
    .byte OP_LDI, 0, OP_ST, R_COL
    LANE_COLUMNS 0
    LANE_COLUMNS 1
    LANE_COLUMNS 2
    LANE_COLUMNS 3
    .byte OP_JMP, lanes_start - prog_lanes

; Waveforms, 32 samples of 0-15: 25 % pulse, 50 % pulse, triangle, noise.
waves:
    .byte 15,15,15,15,15,15,15,15, 0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0
    .byte 15,15,15,15,15,15,15,15, 15,15,15,15,15,15,15,15, 0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0
    .byte 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15, 15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0
    .byte 9,3,14,0,7,12,5,15,2,10,6,1,13,8,4,11, 3,15,0,9,12,6,1,14,7,2,11,5,10,0,13,8
wave_kind: .byte 0, 0, 2, 3

; ---------------------------------------------------------------------------
; Tables

palette:
    .byte $0F, $30, $2A, $16,  $0F, $30, $2A, $16
    .byte $0F, $30, $2A, $16,  $0F, $30, $2A, $16
    .byte $0F, $2C, $3C, $30,  $0F, $30, $10, $00
    .byte $0F, $30, $10, $00,  $0F, $30, $10, $00

chan_bit:   .byte $01, $02, $04, $08
ch_row:     .byte VU_ROW0, VU_ROW0 + 2, VU_ROW0 + 4, VU_ROW0 + 6
ch_row_lo:  .byte <($2000 + VU_ROW0 * 32 + 2), <($2000 + (VU_ROW0 + 2) * 32 + 2)
            .byte <($2000 + (VU_ROW0 + 4) * 32 + 2), <($2000 + (VU_ROW0 + 6) * 32 + 2)
ch_row_hi:  .byte >($2000 + VU_ROW0 * 32 + 2), >($2000 + (VU_ROW0 + 2) * 32 + 2)
            .byte >($2000 + (VU_ROW0 + 4) * 32 + 2), >($2000 + (VU_ROW0 + 6) * 32 + 2)
ch_name_lo: .lobytes str_sq1, str_sq2, str_tri, str_noi
ch_name_hi: .hibytes str_sq1, str_sq2, str_tri, str_noi

keys:       .byte 0, 2, 5, 7
mute_masks: .byte $00, $08, $04, $0E

; The font has no "#", so sharps are written with S, as in the note constants.
note_names: .byte "C-CSD-DSE-F-FSG-GSA-ASB-"

; Instruments: 0 lead, 1 pluck, 2 major chord, 3 minor chord, 4 bass (triangle),
; 5 kick, 6 snare, 7 hat (noise).
inst_env_lo: .lobytes env_lead, env_pluck, env_chord, env_chord, env_bass, env_kick, env_snare, env_hat
inst_env_hi: .hibytes env_lead, env_pluck, env_chord, env_chord, env_bass, env_kick, env_snare, env_hat
inst_duty:   .byte $80, $40, $00, $00, $00, $00, $00, $00
inst_arp:    .byte 0, 0, 1, 2, 0, 0, 0, 0
inst_vib:    .byte 1, 0, 0, 0, 0, 0, 0, 0

; Volume envelopes; the level before $FF is held.
env_lead:  .byte 15, 14, 13, 12, 11, 10, 10, 9, 9, 8, $FF
env_pluck: .byte 15, 12, 10, 8, 6, 5, 4, 3, 2, 2, 1, 1, 0, $FF
env_chord: .byte 11, 10, 9, 9, 8, 8, 7, $FF
env_bass:  .byte 15, $FF
env_kick:  .byte 15, 12, 8, 5, 3, 1, 0, $FF
env_snare: .byte 13, 11, 9, 7, 6, 5, 4, 3, 2, 1, 0, $FF
env_hat:   .byte 7, 4, 2, 1, 0, $FF

; Arpeggios, four steps in semitones: none, major, minor.
arp_steps: .byte 0, 0, 0, 0,  0, 4, 7, 12,  0, 3, 7, 12

vib_wave:  .byte 0, 1, 2, 1, 0, <-1, <-2, <-1

drum_names_lo: .lobytes str_noi, str_noi, str_noi, str_noi, str_noi, str_kick, str_snare, str_hat
drum_names_hi: .hibytes str_noi, str_noi, str_noi, str_noi, str_noi, str_kick, str_snare, str_hat

song_speed:   .byte 7, 9, 6
song_prog_lo: .lobytes prog_mix, prog_lanes, prog_mix
song_prog_hi: .hibytes prog_mix, prog_lanes, prog_mix
song_name_lo: .lobytes str_march, str_nocturne, str_boogie
song_name_hi: .hibytes str_march, str_nocturne, str_boogie
key_names:    .addr str_k0, str_k2, str_k5, str_k7
mute_names:   .addr str_none, str_drums, str_bass, str_solo

str_title:    .byte "T R A C K E R", 0
str_press:    .byte "PRESS START", 0
str_press_off: .byte "           ", 0
str_help1:    .byte "PAD L/R:SONG  U/D:TEMPO", 0
str_help2:    .byte "A:KEY  B:MUTE PARTS", 0
str_song:     .byte "SONG", 0
str_time:     .byte "TIME", 0
str_tempo:    .byte "TEMPO", 0
str_key:      .byte "KEY", 0
str_mute:     .byte "MUTE", 0
str_the_end:  .byte "THE END", 0
str_sq1:      .byte "SQ1", 0
str_sq2:      .byte "SQ2", 0
str_tri:      .byte "TRI", 0
str_noi:      .byte "NOI", 0
str_kick:     .byte "KIK"
str_snare:    .byte "SNR"
str_hat:      .byte "HAT"
str_march:    .byte "MARCH   ", 0
str_nocturne: .byte "NOCTURNE", 0
str_boogie:   .byte "BOOGIE  ", 0
str_k0:       .byte "0", 0
str_k2:       .byte "2", 0
str_k5:       .byte "5", 0
str_k7:       .byte "7", 0
str_none:     .byte "NONE ", 0
str_drums:    .byte "DRUMS", 0
str_bass:     .byte "BASS ", 0
str_solo:     .byte "SOLO ", 0

period_lo:
    .byte $F1, $7F, $13, $AD, $4D, $F3, $9D, $4C, $00, $B8, $74, $34
    .byte $F8, $BF, $89, $56, $26, $F9, $CE, $A6, $80, $5C, $3A, $1A
    .byte $FB, $DF, $C4, $AB, $93, $7C, $67, $52, $3F, $2D, $1C, $0C
    .byte $FD, $EF, $E1, $D5, $C9, $BD, $B3, $A9, $9F, $96, $8E, $86
    .byte $7E, $77, $70, $6A, $64, $5E, $59, $54, $4F, $4B, $46, $42
    .byte $3F, $3B, $38, $34, $31, $2F, $2C, $29, $27, $25, $23, $21
    .byte $1F, $1D, $1B, $1A, $18, $17, $15, $14, $13, $12, $11, $10
    .byte $0F, $0E, $0D, $0C, $0C, $0B, $0A, $0A, $09, $08, $08, $07
period_hi:
    .byte $07, $07, $07, $06, $06, $05, $05, $05, $05, $04, $04, $04
    .byte $03, $03, $03, $03, $03, $02, $02, $02, $02, $02, $02, $02
    .byte $01, $01, $01, $01, $01, $01, $01, $01, $01, $01, $01, $01
    .byte $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00
    .byte $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00
; scope phase step per column: 2^(note/12), so an octave doubles it
note_step:
    .byte 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2
    .byte 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4
    .byte 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 8
    .byte 8, 8, 9, 10, 10, 11, 11, 12, 13, 13, 14, 15
    .byte 16, 17, 18, 19, 20, 21, 23, 24, 25, 27, 29, 30
    .byte 32, 34, 36, 38, 40, 43, 45, 48, 51, 54, 57, 60
    .byte 64, 68, 72, 76, 81, 85, 91, 96, 102, 108, 114, 121
    .byte 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127

; ---------------------------------------------------------------------------
; Songs (our own). Note numbers count semitones from A1 (55 Hz); the triangle
; plays them an octave lower. The noise channel's "note" is its period index.

; octave 1
A1 = 0
AS1 = 1
B1 = 2
; octave 2
C2 = 3
CS2 = 4
D2 = 5
DS2 = 6
E2 = 7
F2 = 8
FS2 = 9
G2 = 10
GS2 = 11
A2 = 12
AS2 = 13
B2 = 14
; octave 3
C3 = 15
CS3 = 16
D3 = 17
DS3 = 18
E3 = 19
F3 = 20
FS3 = 21
G3 = 22
GS3 = 23
A3 = 24
AS3 = 25
B3 = 26
; octave 4
C4 = 27
CS4 = 28
D4 = 29
DS4 = 30
E4 = 31
F4 = 32
FS4 = 33
G4 = 34
GS4 = 35
A4 = 36
AS4 = 37
B4 = 38
; octave 5
C5 = 39
CS5 = 40
D5 = 41
DS5 = 42
E5 = 43
F5 = 44
FS5 = 45
G5 = 46
GS5 = 47
A5 = 48
AS5 = 49
B5 = 50
; octave 6
C6 = 51
CS6 = 52
D6 = 53
DS6 = 54
E6 = 55
F6 = 56
FS6 = 57
G6 = 58
GS6 = 59
A6 = 60
AS6 = 61
B6 = 62
; octave 7
C7 = 63
CS7 = 64
D7 = 65
DS7 = 66
E7 = 67
F7 = 68
FS7 = 69
G7 = 70
GS7 = 71
A7 = 72
AS7 = 73
B7 = 74

.macro KICK
    .byte CMD_INST, 5, 12
.endmacro
.macro SNARE
    .byte CMD_INST, 6, 6
.endmacro
.macro HAT
    .byte CMD_INST, 7, 1
.endmacro

; song * 8 + channel * 2: order lists (pattern numbers, $FF = from the top).
song_orders:
    .addr ord_m_lead, ord_m_chord, ord_m_bass, ord_m_drums
    .addr ord_n_lead, ord_n_chord, ord_n_bass, ord_n_drums
    .addr ord_b_lead, ord_b_chord, ord_b_bass, ord_b_drums

ord_m_lead:  .byte 0, 0, 1, 1, $FF
ord_m_chord: .byte 2, 2, 3, 3, $FF
ord_m_bass:  .byte 4, 4, 5, 5, $FF
ord_m_drums: .byte 6, 6, 6, 7, $FF
ord_n_lead:  .byte 8, 9, 8, 9, $FF
ord_n_chord: .byte 10, $FF
ord_n_bass:  .byte 11, $FF
ord_n_drums: .byte 12, 12, 12, 7, $FF
ord_b_lead:  .byte 13, 13, 14, 13, $FF
ord_b_chord: .byte 15, 15, 16, 15, $FF
ord_b_bass:  .byte 17, 17, 18, 17, $FF
ord_b_drums: .byte 6, 19, 6, 19, $FF

pat_lo: .lobytes pat_m_lead_a, pat_m_lead_b, pat_m_chord_a, pat_m_chord_b
        .lobytes pat_m_bass_a, pat_m_bass_b, pat_drums_a, pat_drums_fill
        .lobytes pat_n_lead_a, pat_n_lead_b, pat_n_chord, pat_n_bass, pat_n_drums
        .lobytes pat_b_lead_a, pat_b_lead_b, pat_b_chord_a, pat_b_chord_b
        .lobytes pat_b_bass_a, pat_b_bass_b, pat_b_drums
pat_hi: .hibytes pat_m_lead_a, pat_m_lead_b, pat_m_chord_a, pat_m_chord_b
        .hibytes pat_m_bass_a, pat_m_bass_b, pat_drums_a, pat_drums_fill
        .hibytes pat_n_lead_a, pat_n_lead_b, pat_n_chord, pat_n_bass, pat_n_drums
        .hibytes pat_b_lead_a, pat_b_lead_b, pat_b_chord_a, pat_b_chord_b
        .hibytes pat_b_bass_a, pat_b_bass_b, pat_b_drums

; MARCH, C major. Every pattern is 32 rows.
pat_m_lead_a:
    .byte CMD_INST, 0, CMD_DUR, 2
    .byte C5, E5, G5, C6, B5, G5, E5, G5, A5, F5, D5, F5, G5, E5, D5, C5
    .byte CMD_END
pat_m_lead_b:
    .byte CMD_INST, 0, CMD_DUR, 2
    .byte E5, F5, G5, A5, G5, F5, E5, D5, C5, D5, E5, F5
    .byte CMD_DUR, 4, E5, D5
    .byte CMD_END
pat_m_chord_a:
    .byte CMD_DUR, 8
    .byte CMD_INST, 2, C4, CMD_INST, 3, A3, CMD_INST, 2, F3, CMD_INST, 2, G3
    .byte CMD_END
pat_m_chord_b:
    .byte CMD_DUR, 8
    .byte CMD_INST, 2, F3, CMD_INST, 2, C4, CMD_INST, 3, D4, CMD_INST, 2, G3
    .byte CMD_END
pat_m_bass_a:
    .byte CMD_INST, 4, CMD_DUR, 2
    .byte C3, G2, C3, G2, A2, E2, A2, E2, F2, C3, F2, C3, G2, D3, G2, D3
    .byte CMD_END
pat_m_bass_b:
    .byte CMD_INST, 4, CMD_DUR, 2
    .byte F2, C3, F2, C3, C3, G2, C3, G2, D3, A2, D3, A2, G2, D3, G2, B2
    .byte CMD_END
pat_drums_a:
    .byte CMD_DUR, 2
    KICK
    HAT
    SNARE
    HAT
    KICK
    KICK
    SNARE
    HAT
    KICK
    HAT
    SNARE
    HAT
    KICK
    KICK
    SNARE
    HAT
    .byte CMD_END
pat_drums_fill:
    .byte CMD_DUR, 2
    KICK
    HAT
    SNARE
    HAT
    KICK
    HAT
    SNARE
    SNARE
    .byte CMD_DUR, 1
    SNARE
    SNARE
    SNARE
    SNARE
    KICK
    SNARE
    KICK
    SNARE
    .byte CMD_DUR, 4
    KICK
    SNARE
    .byte CMD_END

; NOCTURNE, A minor, slower, plucked lead.
pat_n_lead_a:
    .byte CMD_INST, 1, CMD_DUR, 2
    .byte A4, C5, E5, A5, G5, E5, C5, E5, F5, A5, C6, A5, E5, D5, C5, B4
    .byte CMD_END
pat_n_lead_b:
    .byte CMD_INST, 1, CMD_DUR, 4, A5, CMD_DUR, 2, G5, F5, CMD_DUR, 4, E5
    .byte CMD_DUR, 2, D5, C5, CMD_DUR, 4, D5, E5, CMD_DUR, 8, A4
    .byte CMD_END
pat_n_chord:
    .byte CMD_DUR, 8
    .byte CMD_INST, 3, A3, CMD_INST, 2, F3, CMD_INST, 2, C4, CMD_INST, 2, E3
    .byte CMD_END
pat_n_bass:
    .byte CMD_INST, 4, CMD_DUR, 4
    .byte A2, A2, F2, F2, C3, C3, E2, E2
    .byte CMD_END
pat_n_drums:
    .byte CMD_DUR, 4
    KICK
    HAT
    SNARE
    HAT
    KICK
    HAT
    SNARE
    .byte CMD_REST
    .byte CMD_END

; BOOGIE, C, fast: walking bass, a blues riff and chord stabs.
pat_b_lead_a:
    .byte CMD_INST, 1, CMD_DUR, 2
    .byte C5, DS5, E5, G5, A5, G5, E5, DS5
    .byte CMD_DUR, 4, C5, CMD_REST
    .byte CMD_DUR, 2, G4, AS4, C5, CMD_REST
    .byte CMD_END
pat_b_lead_b:
    .byte CMD_INST, 0, CMD_DUR, 2
    .byte G5, AS5, C6, AS5, G5, F5, DS5, C5
    .byte CMD_DUR, 4, D5, CMD_REST
    .byte CMD_DUR, 2, B4, D5, G5, CMD_REST
    .byte CMD_END
pat_b_chord_a:
    .byte CMD_INST, 2, CMD_DUR, 4
    .byte C4, CMD_REST, C4, CMD_REST, F3, CMD_REST, F3, CMD_REST
    .byte CMD_END
pat_b_chord_b:
    .byte CMD_INST, 2, CMD_DUR, 4
    .byte G3, CMD_REST, F3, CMD_REST, C4, CMD_REST, G3, CMD_REST
    .byte CMD_END
pat_b_bass_a:
    .byte CMD_INST, 4, CMD_DUR, 2
    .byte C3, E3, G3, A3, AS3, A3, G3, E3, F3, A3, C4, D4, DS4, D4, C4, A3
    .byte CMD_END
pat_b_bass_b:
    .byte CMD_INST, 4, CMD_DUR, 2
    .byte G3, B3, D4, E4, F4, E4, D4, B3, C3, E3, G3, A3, AS3, A3, G3, E3
    .byte CMD_END
pat_b_drums:
    .byte CMD_DUR, 2
    KICK
    HAT
    SNARE
    HAT
    KICK
    HAT
    SNARE
    HAT
    KICK
    KICK
    SNARE
    HAT
    KICK
    HAT
    SNARE
    SNARE
    .byte CMD_END
