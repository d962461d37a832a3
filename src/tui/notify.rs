//! Calling the user back: when a turn ends or fails, or an approval or a
//! question waits, while the terminal is not focused (focus reporting,
//! CSI ?1004), the UI writes a desktop notification the terminal shows
//! (OSC 9, or OSC 777 where the terminal wants that one) or rings the bell.

use std::str::FromStr;

/// What the user chose (`[tui] notifications`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Notifications {
    /// A desktop notification where the terminal shows one, else the bell.
    #[default]
    Auto,
    /// Always the bell.
    Bell,
    /// Nothing.
    Off,
}

impl FromStr for Notifications {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(Notifications::Auto),
            "bell" => Ok(Notifications::Bell),
            "off" => Ok(Notifications::Off),
            other => Err(format!("unknown notifications mode {other:?}")),
        }
    }
}

/// How a notification reaches this terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// `ESC ] 9 ; text BEL` (iTerm2, WezTerm, Ghostty, kitty, Windows Terminal).
    Osc9,
    /// `ESC ] 777 ; notify ; title ; text BEL` (foot, urxvt, Konsole).
    Osc777,
    /// `BEL`: the terminal's own alert (and tmux's, which passes no OSC
    /// through without configuration and would drop or mangle one).
    Bell,
}

impl Channel {
    /// The channel `mode` gives in a terminal with this environment
    /// (`TERM`, `TERM_PROGRAM`, `TMUX`); `None` when notifications are off.
    pub fn pick(mode: Notifications, var: impl Fn(&str) -> Option<String>) -> Option<Channel> {
        match mode {
            Notifications::Off => return None,
            Notifications::Bell => return Some(Channel::Bell),
            Notifications::Auto => {}
        }
        if var("TMUX").is_some_and(|v| !v.is_empty()) {
            return Some(Channel::Bell);
        }
        let program = var("TERM_PROGRAM").unwrap_or_default();
        let term = var("TERM").unwrap_or_default();
        let osc9 = ["iTerm.app", "WezTerm", "ghostty", "vscode"];
        if osc9.contains(&program.as_str())
            || term.contains("kitty")
            || term.contains("ghostty")
            || var("WT_SESSION").is_some()
        {
            Some(Channel::Osc9)
        } else if term.starts_with("foot")
            || term.starts_with("rxvt")
            || var("KONSOLE_VERSION").is_some()
        {
            Some(Channel::Osc777)
        } else {
            Some(Channel::Bell)
        }
    }

    /// The bytes that notify with `text` (control characters removed, at
    /// most 120 characters: a model's or a tool's text never ends the
    /// sequence early or smuggles another one in).
    pub fn sequence(self, text: &str) -> String {
        let clean: String = text
            .chars()
            .filter(|c| !c.is_control())
            .map(|c| if c == ';' { ',' } else { c })
            .take(120)
            .collect();
        match self {
            Channel::Osc9 => format!("\x1b]9;{clean}\x07"),
            Channel::Osc777 => format!("\x1b]777;notify;light-agent;{clean}\x07"),
            Channel::Bell => "\x07".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_channel_follows_the_terminal_and_the_choice() {
        let auto = Notifications::Auto;
        let pick = |vars: &[(&str, &str)]| Channel::pick(auto, env(vars));
        assert_eq!(pick(&[("TERM_PROGRAM", "WezTerm")]), Some(Channel::Osc9));
        assert_eq!(pick(&[("TERM", "xterm-kitty")]), Some(Channel::Osc9));
        assert_eq!(pick(&[("TERM", "foot")]), Some(Channel::Osc777));
        assert_eq!(pick(&[("TERM", "xterm-256color")]), Some(Channel::Bell));
        assert_eq!(
            pick(&[
                ("TERM_PROGRAM", "WezTerm"),
                ("TMUX", "/tmp/tmux-0/default,1,0")
            ]),
            Some(Channel::Bell),
            "inside tmux only the bell"
        );
        let wezterm = env(&[("TERM_PROGRAM", "WezTerm")]);
        assert_eq!(Channel::pick(Notifications::Off, &wezterm), None);
        assert_eq!(
            Channel::pick(Notifications::Bell, &wezterm),
            Some(Channel::Bell)
        );
    }

    #[test]
    fn a_text_cannot_end_or_inject_a_sequence() {
        let text = "done\x07\x1b]9;evil\x1b\\; more";
        assert_eq!(
            Channel::Osc9.sequence(text),
            "\x1b]9;done]9,evil\\, more\x07"
        );
        assert_eq!(
            Channel::Osc777.sequence("a;b"),
            "\x1b]777;notify;light-agent;a,b\x07"
        );
        assert_eq!(Channel::Bell.sequence("anything"), "\x07");
        assert_eq!(Channel::Osc9.sequence(&"x".repeat(500)).len(), 4 + 120 + 1);
    }
}
