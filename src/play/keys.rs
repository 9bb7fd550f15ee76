//! Keyboard → controller mapping for the window. The default follows common
//! emulator practice (arrows, Z = B, X = A, Enter = Start, Right Shift =
//! Select); `--keys` overrides any subset, e.g. `--keys a=K,b=J,start=Space`.

use emu::controller::buttons;
use minifb::Key;

use super::overlay::Action;

#[derive(Debug, Clone)]
pub struct KeyMap {
    /// (key, controller button bit) pairs.
    pub bindings: Vec<(Key, u8)>,
}

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap {
            bindings: vec![
                (Key::X, buttons::A),
                (Key::Z, buttons::B),
                (Key::RightShift, buttons::SELECT),
                (Key::Enter, buttons::START),
                (Key::Up, buttons::UP),
                (Key::Down, buttons::DOWN),
                (Key::Left, buttons::LEFT),
                (Key::Right, buttons::RIGHT),
            ],
        }
    }
}

fn button_named(name: &str) -> Option<u8> {
    Some(match name.to_ascii_lowercase().as_str() {
        "a" => buttons::A,
        "b" => buttons::B,
        "select" => buttons::SELECT,
        "start" => buttons::START,
        "up" => buttons::UP,
        "down" => buttons::DOWN,
        "left" => buttons::LEFT,
        "right" => buttons::RIGHT,
        _ => return None,
    })
}

fn key_named(name: &str) -> Option<Key> {
    let upper = name.to_ascii_uppercase();
    if upper.len() == 1 {
        let c = upper.as_bytes()[0];
        if c.is_ascii_uppercase() {
            return Some(LETTERS[(c - b'A') as usize]);
        }
        if c.is_ascii_digit() {
            return Some(DIGITS[(c - b'0') as usize]);
        }
    }
    Some(match upper.as_str() {
        "UP" => Key::Up,
        "DOWN" => Key::Down,
        "LEFT" => Key::Left,
        "RIGHT" => Key::Right,
        "ENTER" | "RETURN" => Key::Enter,
        "SPACE" => Key::Space,
        "TAB" => Key::Tab,
        "BACKSPACE" => Key::Backspace,
        "LSHIFT" | "LEFTSHIFT" => Key::LeftShift,
        "RSHIFT" | "RIGHTSHIFT" => Key::RightShift,
        "LCTRL" | "LEFTCTRL" => Key::LeftCtrl,
        "RCTRL" | "RIGHTCTRL" => Key::RightCtrl,
        "LALT" | "LEFTALT" => Key::LeftAlt,
        "RALT" | "RIGHTALT" => Key::RightAlt,
        _ => return None,
    })
}

const LETTERS: [Key; 26] = [
    Key::A,
    Key::B,
    Key::C,
    Key::D,
    Key::E,
    Key::F,
    Key::G,
    Key::H,
    Key::I,
    Key::J,
    Key::K,
    Key::L,
    Key::M,
    Key::N,
    Key::O,
    Key::P,
    Key::Q,
    Key::R,
    Key::S,
    Key::T,
    Key::U,
    Key::V,
    Key::W,
    Key::X,
    Key::Y,
    Key::Z,
];
const DIGITS: [Key; 10] = [
    Key::Key0,
    Key::Key1,
    Key::Key2,
    Key::Key3,
    Key::Key4,
    Key::Key5,
    Key::Key6,
    Key::Key7,
    Key::Key8,
    Key::Key9,
];

/// The overlay's keys (see `overlay/`).
pub const OVERLAY: [(Key, Action); 8] = [
    (Key::O, Action::Toggle),
    (Key::C, Action::CycleColouring),
    (Key::Key1, Action::Preset(0)),
    (Key::Key2, Action::Preset(1)),
    (Key::Key3, Action::Preset(2)),
    (Key::Key4, Action::Preset(3)),
    (Key::R, Action::Reset),
    (Key::M, Action::SwitchView),
];

/// Keys the window itself uses; they cannot be bound to buttons. The
/// overlay's are reserved even without `--overlay`, so a key binding means
/// the same with or without the panel.
pub const RESERVED: [Key; 12] = [
    Key::P,
    Key::F,
    Key::Escape,
    Key::F12,
    Key::O,
    Key::C,
    Key::Key1,
    Key::Key2,
    Key::Key3,
    Key::Key4,
    Key::R,
    Key::M,
];

impl KeyMap {
    /// Parses `button=key,...` overrides on top of the defaults.
    pub fn parse(spec: &str) -> Result<KeyMap, String> {
        let mut map = KeyMap::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (button, key) = part
                .split_once('=')
                .ok_or_else(|| format!("`{part}`: expected button=key, e.g. a=X"))?;
            let bit = button_named(button.trim()).ok_or_else(|| {
                format!("`{button}` is not a button (a, b, select, start, up, down, left, right)")
            })?;
            let key = key_named(key.trim())
                .ok_or_else(|| format!("`{key}` is not a key name we know (letters, digits, Up, Enter, Space, RShift, ...)"))?;
            if RESERVED.contains(&key) {
                return Err(format!("{key:?} is reserved by the window (P pause, F frame advance, Esc quit, F12 screenshot; overlay: O, C, 1-4, R)"));
            }
            map.bindings.retain(|(_, b)| *b != bit);
            map.bindings.push((key, bit));
        }
        Ok(map)
    }

    /// The controller byte for the keys currently held.
    pub fn buttons(&self, is_down: impl Fn(Key) -> bool) -> u8 {
        self.bindings
            .iter()
            .filter(|(key, _)| is_down(*key))
            .fold(0, |acc, (_, bit)| acc | bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_errors() {
        let map = KeyMap::parse("a=K, start=Space").unwrap();
        assert!(map.bindings.contains(&(Key::K, buttons::A)));
        assert!(!map.bindings.contains(&(Key::X, buttons::A)));
        assert!(map.bindings.contains(&(Key::Space, buttons::START)));
        assert!(KeyMap::parse("turbo=K").is_err());
        assert!(KeyMap::parse("a=Nope").is_err());
        assert!(KeyMap::parse("a=P").is_err());
        for reserved in ["O", "c", "1", "4", "r"] {
            assert!(
                KeyMap::parse(&format!("b={reserved}")).is_err(),
                "{reserved}"
            );
        }
        assert!(KeyMap::parse("b=5").is_ok());
        let held = map.buttons(|k| k == Key::K || k == Key::Up);
        assert_eq!(held, buttons::A | buttons::UP);
    }
}
