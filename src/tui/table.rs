//! Markdown tables laid out for a width: column widths from the content
//! and the room there is, cell text wrapped inside its cell, rules intact.
//! Below [`MIN_CELL`] columns a cell, a table is shown as one
//! "column: value" block per row instead.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::width::str_width;
use super::wrap::{plain, wrap_line};

/// Narrowest a column gets before the table turns into blocks.
pub const MIN_CELL: usize = 6;

const SEPARATOR: &str = " │ ";

/// A table's cells (plain text) and how many leading rows are the header.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// Rows of cells, header rows first.
    pub rows: Vec<Vec<String>>,
    /// How many of `rows` are the header.
    pub head_rows: usize,
}

/// The table's lines for `width` columns.
pub fn layout(table: &Table, width: usize) -> Vec<Line<'static>> {
    let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
    if columns == 0 {
        return Vec::new();
    }
    let natural = natural_widths(table, columns);
    let room = width.saturating_sub(str_width(SEPARATOR) * (columns - 1));
    if room < MIN_CELL * columns && natural.iter().sum::<usize>() > room {
        return as_blocks(table, width);
    }
    let widths = fit(&natural, room);
    grid(table, &widths)
}

fn natural_widths(table: &Table, columns: usize) -> Vec<usize> {
    let mut widths = vec![0; columns];
    for row in &table.rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(str_width(cell.trim()));
        }
    }
    widths
}

/// Column widths that sum to at most `room`: every column gets its natural
/// width if all fit; otherwise the room is shared out evenly, a column never
/// getting more than it needs, and what it does not need goes to the others.
fn fit(natural: &[usize], room: usize) -> Vec<usize> {
    if natural.iter().sum::<usize>() <= room {
        return natural.to_vec();
    }
    let mut widths = vec![0; natural.len()];
    let mut left = room;
    let mut open: Vec<usize> = (0..natural.len()).collect();
    // Each round gives every open column at least one cell while room
    // is left, so the loop ends.
    while !open.is_empty() && left > 0 {
        let share = (left / open.len()).max(1);
        let mut still = Vec::new();
        for &i in &open {
            let give = share.min(natural[i] - widths[i]).min(left);
            widths[i] += give;
            left -= give;
            if widths[i] < natural[i] {
                still.push(i);
            }
        }
        open = still;
    }
    widths.iter().map(|w| (*w).max(1)).collect()
}

fn grid(table: &Table, widths: &[usize]) -> Vec<Line<'static>> {
    let border = Style::new().fg(Color::DarkGray);
    let mut out = Vec::new();
    for (r, row) in table.rows.iter().enumerate() {
        let style = if r < table.head_rows {
            Style::new().add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        };
        let cells: Vec<Vec<String>> = widths
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let text = row.get(i).map(|c| c.trim()).unwrap_or("");
                wrap_line(&Line::from(text.to_string()), *w, &[])
                    .iter()
                    .map(plain)
                    .collect()
            })
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1).max(1);
        for k in 0..height {
            let mut spans = Vec::new();
            for (i, w) in widths.iter().enumerate() {
                if i > 0 {
                    spans.push(Span::styled(SEPARATOR, border));
                }
                let piece = cells[i].get(k).map(String::as_str).unwrap_or("");
                let pad = w.saturating_sub(str_width(piece));
                spans.push(Span::styled(format!("{piece}{}", " ".repeat(pad)), style));
            }
            out.push(Line::from(spans));
        }
        if r + 1 == table.head_rows {
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            out.push(Line::from(Span::styled(rule.join("─┼─"), border)));
        }
    }
    out
}

/// One "column: value" block per body row, a blank line between rows.
fn as_blocks(table: &Table, width: usize) -> Vec<Line<'static>> {
    let header: Vec<String> = table
        .rows
        .get(..table.head_rows)
        .and_then(|h| h.last())
        .cloned()
        .unwrap_or_default();
    let name = Style::new().add_modifier(Modifier::BOLD);
    let mut out = Vec::new();
    for row in table.rows.iter().skip(table.head_rows) {
        if !out.is_empty() {
            out.push(Line::default());
        }
        for (i, cell) in row.iter().enumerate() {
            let column = header.get(i).map(|h| h.trim()).unwrap_or("");
            let line = Line::from(vec![
                Span::styled(format!("{column}: "), name),
                Span::raw(cell.trim().to_string()),
            ]);
            out.extend(wrap_line(&line, width, &[Span::raw("  ")]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table {
            rows: vec![
                vec!["name".into(), "what it does".into(), "since".into()],
                vec![
                    "parser".into(),
                    "turns the token stream into a syntax tree, recovering from errors".into(),
                    "0.1".into(),
                ],
                vec![
                    "lexer".into(),
                    "splits text into tokens".into(),
                    "0.1".into(),
                ],
            ],
            head_rows: 1,
        }
    }

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(plain).collect()
    }

    #[test]
    fn a_table_is_never_wider_than_its_width_and_keeps_its_rules() {
        for width in [24, 30, 40, 60, 80, 120] {
            let lines = texts(&layout(&table(), width));
            for line in &lines {
                assert!(str_width(line) <= width, "{line:?} at {width}");
            }
            let rule = lines.iter().filter(|l| l.contains('┼')).count();
            assert_eq!(rule, 1, "one header rule at {width}: {lines:#?}");
            let rows_with_bars = lines.iter().filter(|l| l.contains('│')).count();
            assert_eq!(
                rows_with_bars,
                lines.len() - 1,
                "every row has its bars at {width}"
            );
        }
    }

    #[test]
    fn wide_enough_tables_keep_natural_widths() {
        let lines = texts(&layout(&table(), 120));
        assert_eq!(lines.len(), 4);
        assert!(lines[1].starts_with("───────┼─"));
    }

    #[test]
    fn too_narrow_a_table_becomes_column_value_blocks() {
        let lines = texts(&layout(&table(), 16));
        assert_eq!(lines[0], "name: parser");
        assert!(lines.iter().any(|l| l == "name: lexer"), "{lines:#?}");
        assert!(lines.iter().all(|l| str_width(l) <= 16), "{lines:#?}");
    }
}
