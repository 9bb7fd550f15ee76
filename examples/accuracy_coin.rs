//! Runs 100thCoin's AccuracyCoin (a broad NROM accuracy suite, not in the
//! shared ROM set; see issue 22's note) through all its tests and prints
//! the results it stores in RAM: one byte per test at $0400-$04FF, low two
//! bits 1 = pass, 2 = fail with the error code in the upper six bits (its
//! source, `TEST_Fail`); the names are in its `TestPages` table.
//!
//! Usage: accuracy_coin AccuracyCoin.nes [interp|translate]

use emu::nes::Engine;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: accuracy_coin AccuracyCoin.nes [interp|translate]");
        std::process::exit(2);
    };
    let rom = nesprof::open::read_rom(std::path::Path::new(path)).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let mut nes = emu::Nes::new(emu::Cartridge::from_bytes(&rom).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    }));
    nes.set_engine(match args.get(2).map(String::as_str) {
        Some("interp") => Engine::Interpreter,
        _ => Engine::Translator,
    });
    // The menu, then Start on the page index runs every test.
    for _ in 0..60 {
        nes.run_frame();
    }
    nes.set_buttons(0, 0x08);
    for _ in 0..5 {
        nes.run_frame();
    }
    nes.set_buttons(0, 0);
    for _ in 0..8000 {
        nes.run_frame();
    }
    let (mut passed, mut failed) = (0, 0);
    for (i, &r) in nes.ram()[0x400..0x500].iter().enumerate() {
        match r & 3 {
            1 => passed += 1,
            2 => {
                failed += 1;
                println!("${:04X}: FAIL, error {:X}", 0x400 + i, r >> 2);
            }
            _ => {}
        }
    }
    println!("{passed} passed, {failed} failed");
}
