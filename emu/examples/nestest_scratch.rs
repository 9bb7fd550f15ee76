use emu::*;
fn main() {
    let mut nes = Nes::load(std::path::Path::new(
        "../shared/roms/cpu/nestest/nestest.nes",
    ))
    .unwrap();
    nes.cpu.pc = 0xC000;
    let log = std::fs::read_to_string("../shared/roms/cpu/nestest/nestest.log").unwrap();
    for (i, want) in log.lines().enumerate() {
        let got = emu::trace::nestest_line(&nes);
        if got != want {
            println!("line {}:\n got  {}\n want {}", i + 1, got, want);
            return;
        }
        nes.step();
    }
    println!("all match; $02={:02X} $03={:02X}", nes.peek(2), nes.peek(3));
}
