//! The plots of `mpv eval` as standalone SVG: a log-log scatter plot of
//! per-module CPU time (baseline on x, a configuration on y, the diagonal
//! where both are equal; the paper's Fig. 2) and a quantile plot (each
//! configuration's solved modules sorted by CPU time, log y).

use crate::util::escape_markup as escape;
use std::fmt::Write as _;

use super::Point;

/// Line colours of the configurations, in run order (repeated past the end).
const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// An SVG document under construction.
struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    fn new(width: f64, height: f64) -> Svg {
        Svg {
            width,
            height,
            body: String::new(),
        }
    }

    fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), style: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" {style}/>"#
        );
    }

    fn polyline(&mut self, points: &[(f64, f64)], colour: &str) {
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = writeln!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="1.5"/>"#,
            pts.join(" ")
        );
    }

    fn rect(&mut self, (x, y): (f64, f64), (w, h): (f64, f64), style: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" {style}/>"#
        );
    }

    /// A box behind a legend of `rows` entries, the longest `chars` long,
    /// at the top left of the plot area.
    fn legend_box(&mut self, f: &Frame, rows: usize, chars: usize) {
        let size = (36.0 + 6.5 * chars as f64, 8.0 + 16.0 * rows as f64);
        let style = r##"fill="white" fill-opacity="0.85" stroke="#cccccc""##;
        self.rect((f.left + 4.0, f.top + 2.0), size, style);
    }

    fn circle(&mut self, (cx, cy): (f64, f64), style: &str) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="3" {style}/>"#
        );
    }

    /// Text at (x, y); `anchor` is `start`, `middle` or `end`; `vertical`
    /// turns it a quarter anticlockwise about its anchor.
    fn text(&mut self, (x, y): (f64, f64), anchor: &str, size: u32, vertical: bool, s: &str) {
        let rotate = if vertical {
            format!(r#" transform="rotate(-90 {x:.1} {y:.1})""#)
        } else {
            String::new()
        };
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}"{rotate}>{}</text>"#,
            escape(s)
        );
    }

    fn finish(self) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">\n\
             <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n{}</svg>\n",
            self.body,
            w = self.width,
            h = self.height
        )
    }
}

/// A logarithmic axis over whole decades, mapped onto pixels `from..to`.
/// Values at or below zero, which a log axis cannot show, sit at its lower end.
struct LogAxis {
    lo: i32,
    hi: i32,
    from: f64,
    to: f64,
}

impl LogAxis {
    /// The decades covering the positive values (at least one decade).
    fn covering(values: impl Iterator<Item = f64>, from: f64, to: f64) -> LogAxis {
        let (mut lo, mut hi) = (i32::MAX, i32::MIN);
        for v in values.filter(|v| *v > 0.0 && v.is_finite()) {
            let e = v.log10();
            lo = lo.min(e.floor() as i32);
            hi = hi.max(e.ceil() as i32);
        }
        if lo > hi {
            (lo, hi) = (-1, 1);
        }
        LogAxis {
            lo,
            hi: hi.max(lo + 1),
            from,
            to,
        }
    }

    fn px(&self, v: f64) -> f64 {
        let e = if v > 0.0 {
            v.log10().clamp(self.lo as f64, self.hi as f64)
        } else {
            self.lo as f64
        };
        self.from + (e - self.lo as f64) / (self.hi - self.lo) as f64 * (self.to - self.from)
    }

    /// The decades with their labels (`0.01`, `1`, `100`).
    fn ticks(&self) -> Vec<(f64, String)> {
        (self.lo..=self.hi)
            .map(|e| {
                let v = 10f64.powi(e);
                let label = if e >= 0 {
                    format!("{v:.0}")
                } else {
                    format!("{v:.prec$}", prec = (-e) as usize)
                };
                (self.px(v), label)
            })
            .collect()
    }
}

/// The plot area in pixels.
#[derive(Clone, Copy)]
struct Frame {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
}

const TICK: f64 = 5.0;
const AXIS: &str = r#"stroke="black" stroke-width="1""#;
const GRID: &str = r##"stroke="#dddddd" stroke-width="1""##;

impl Frame {
    fn draw(&self, svg: &mut Svg, title: &str, x_label: &str, y_label: &str) {
        let f = *self;
        svg.line((f.left, f.bottom), (f.right, f.bottom), AXIS);
        svg.line((f.left, f.top), (f.left, f.bottom), AXIS);
        svg.text(
            ((f.left + f.right) / 2.0, f.top - 14.0),
            "middle",
            14,
            false,
            title,
        );
        svg.text(
            ((f.left + f.right) / 2.0, f.bottom + 40.0),
            "middle",
            12,
            false,
            x_label,
        );
        let mid = (f.top + f.bottom) / 2.0;
        svg.text((f.left - 52.0, mid), "middle", 12, true, y_label);
    }

    fn x_ticks(&self, svg: &mut Svg, ticks: &[(f64, String)]) {
        for (x, label) in ticks {
            svg.line((*x, self.top), (*x, self.bottom), GRID);
            svg.line((*x, self.bottom), (*x, self.bottom + TICK), AXIS);
            svg.text((*x, self.bottom + 18.0), "middle", 11, false, label);
        }
    }

    fn y_ticks(&self, svg: &mut Svg, ticks: &[(f64, String)]) {
        for (y, label) in ticks {
            svg.line((self.left, *y), (self.right, *y), GRID);
            svg.line((self.left - TICK, *y), (self.left, *y), AXIS);
            svg.text((self.left - 8.0, y + 4.0), "end", 11, false, label);
        }
    }
}

/// Log-log scatter plot of per-module CPU seconds: the baseline on x, the
/// configuration on y, the diagonal where both are equal. Modules where the
/// configuration left a property UNKNOWN are drawn hollow.
pub fn scatter(title: &str, baseline: &str, config: &str, points: &[Point]) -> String {
    let f = Frame {
        left: 80.0,
        top: 40.0,
        right: 500.0,
        bottom: 460.0,
    };
    let mut svg = Svg::new(540.0, 520.0);
    let values = points.iter().flat_map(|p| [p.baseline_s, p.config_s]);
    let x = LogAxis::covering(values, f.left, f.right);
    let y = LogAxis {
        from: f.bottom,
        to: f.top,
        ..x
    };
    f.x_ticks(&mut svg, &x.ticks());
    f.y_ticks(&mut svg, &y.ticks());
    f.draw(
        &mut svg,
        title,
        &format!("{baseline}: total CPU time per module (s)"),
        &format!("{config}: total CPU time per module (s)"),
    );
    svg.line(
        (f.left, f.bottom),
        (f.right, f.top),
        r#"stroke="gray" stroke-width="1" stroke-dasharray="4 3""#,
    );
    for p in points {
        let style = if p.solved {
            r##"fill="#1f77b4" fill-opacity="0.7" stroke="none""##
        } else {
            r##"fill="none" stroke="#d62728" stroke-width="1""##
        };
        svg.circle((x.px(p.baseline_s), y.px(p.config_s)), style);
    }
    let legend = [
        (
            r##"fill="#1f77b4" stroke="none""##,
            "all properties decided",
        ),
        (
            r##"fill="none" stroke="#d62728" stroke-width="1""##,
            "some property UNKNOWN",
        ),
    ];
    let longest = legend.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
    svg.legend_box(&f, legend.len(), longest);
    for (i, (style, label)) in legend.iter().enumerate() {
        let ly = f.top + 14.0 + 16.0 * i as f64;
        svg.circle((f.left + 12.0, ly - 4.0), style);
        svg.text((f.left + 22.0, ly), "start", 11, false, label);
    }
    svg.finish()
}

/// A step of about a fifth of `max` rounded to 1, 2 or 5 times a power of
/// ten (at least 1): the tick spacing of a linear count axis.
fn nice_step(max: f64) -> f64 {
    let raw = (max / 5.0).max(1.0);
    let mag = 10f64.powf(raw.log10().floor());
    let m = raw / mag;
    let k = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    k * mag
}

/// Quantile plot: for each configuration, the CPU seconds of the modules it
/// solved, sorted; x is the n-th fastest module, y its CPU time on a log axis.
pub fn quantile(title: &str, series: &[(String, Vec<f64>)]) -> String {
    let f = Frame {
        left: 80.0,
        top: 40.0,
        right: 620.0,
        bottom: 380.0,
    };
    let mut svg = Svg::new(660.0, 440.0);
    let n = series
        .iter()
        .map(|(_, v)| v.len())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let step = nice_step(n);
    let x_max = (n / step).ceil() * step;
    let x_px = |i: f64| f.left + i / x_max * (f.right - f.left);
    let y = LogAxis::covering(
        series.iter().flat_map(|(_, v)| v.iter().copied()),
        f.bottom,
        f.top,
    );
    let x_ticks: Vec<(f64, String)> = (0..=(x_max / step) as usize)
        .map(|k| {
            let i = k as f64 * step;
            (x_px(i), format!("{i:.0}"))
        })
        .collect();
    f.x_ticks(&mut svg, &x_ticks);
    f.y_ticks(&mut svg, &y.ticks());
    f.draw(
        &mut svg,
        title,
        "n-th fastest module with every property decided",
        "total CPU time (s)",
    );
    let labels: Vec<String> = series
        .iter()
        .map(|(name, times)| format!("{name} ({} modules)", times.len()))
        .collect();
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    for (k, (_, times)) in series.iter().enumerate() {
        let colour = PALETTE[k % PALETTE.len()];
        let pts: Vec<(f64, f64)> = times
            .iter()
            .enumerate()
            .map(|(i, t)| (x_px(i as f64 + 1.0), y.px(*t)))
            .collect();
        if pts.len() == 1 {
            svg.circle(pts[0], &format!(r#"fill="{colour}" stroke="none""#));
        }
        svg.polyline(&pts, colour);
    }
    if !series.is_empty() {
        svg.legend_box(&f, series.len(), longest);
    }
    for (k, label) in labels.iter().enumerate() {
        let colour = PALETTE[k % PALETTE.len()];
        let ly = f.top + 14.0 + 16.0 * k as f64;
        let style = format!(r#"stroke="{colour}" stroke-width="2""#);
        svg.line((f.left + 8.0, ly - 4.0), (f.left + 28.0, ly - 4.0), &style);
        svg.text((f.left + 34.0, ly), "start", 11, false, label);
    }
    svg.finish()
}

/// Checks that `text` is one well-formed XML element named `svg`, after an
/// optional declaration: tags nest and close, attribute values are quoted,
/// and `&` starts an entity. (Not a full XML parser: no DTDs or CDATA.)
pub fn well_formed(text: &str) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut rest = text;
    while let Some(lt) = rest.find('<') {
        check_text(&rest[..lt], open.is_empty())?;
        let tag = &rest[lt + 1..];
        if let Some(body) = tag.strip_prefix("!--") {
            let end = body.find("-->").ok_or("unterminated comment")?;
            rest = &body[end + 3..];
            continue;
        }
        let mut quoted = false;
        let gt = tag
            .char_indices()
            .find(|&(_, c)| {
                quoted ^= c == '"';
                c == '>' && !quoted
            })
            .map(|(i, _)| i)
            .ok_or("unterminated tag")?;
        let inner = &tag[..gt];
        rest = &tag[gt + 1..];
        if inner.starts_with('?') {
            if !inner.ends_with('?') || roots > 0 || !open.is_empty() {
                return Err(format!("misplaced declaration <{inner}>"));
            }
            continue;
        }
        if inner.contains('<') {
            return Err(format!("`<` inside the tag <{inner}>"));
        }
        if let Some(name) = inner.strip_prefix('/') {
            match open.pop() {
                Some(o) if o == name.trim() => continue,
                o => return Err(format!("</{name}> closes {o:?}")),
            }
        }
        let self_closing = inner.ends_with('/');
        let inner = inner.trim_end_matches('/');
        let name = inner.split_whitespace().next().unwrap_or("");
        if name.is_empty() {
            return Err("a tag without a name".into());
        }
        check_attributes(name, &inner[name.len()..])?;
        if open.is_empty() {
            roots += 1;
            if roots > 1 || name != "svg" {
                return Err(format!("root element <{name}> (want one <svg>)"));
            }
        }
        if !self_closing {
            open.push(name);
        }
    }
    check_text(rest, true)?;
    if let Some(o) = open.last() {
        return Err(format!("<{o}> is never closed"));
    }
    if roots == 0 {
        return Err("no <svg> element".into());
    }
    Ok(())
}

/// Character data: `&` only in entities; only whitespace `outside` the root.
fn check_text(s: &str, outside: bool) -> Result<(), String> {
    if outside && !s.trim().is_empty() {
        return Err(format!("text `{}` outside the root element", s.trim()));
    }
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        let after = &rest[amp + 1..];
        let semi = after.find(';').ok_or("`&` without `;`")?;
        let entity = &after[..semi];
        let numeric = entity
            .strip_prefix('#')
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
        if !numeric && !["amp", "lt", "gt", "quot", "apos"].contains(&entity) {
            return Err(format!("unknown entity &{entity};"));
        }
        rest = &after[semi + 1..];
    }
    Ok(())
}

/// `name="value"` pairs separated by whitespace, each name once.
fn check_attributes(tag: &str, s: &str) -> Result<(), String> {
    let mut rest = s.trim_start();
    let mut seen = Vec::new();
    while !rest.is_empty() {
        let eq = rest
            .find('=')
            .ok_or(format!("<{tag}>: attribute without value"))?;
        let name = rest[..eq].trim();
        if name.is_empty() || name.contains(char::is_whitespace) || seen.contains(&name) {
            return Err(format!("<{tag}>: bad or repeated attribute `{name}`"));
        }
        seen.push(name);
        let value = rest[eq + 1..]
            .trim_start()
            .strip_prefix('"')
            .ok_or(format!("<{tag}>: unquoted value of `{name}`"))?;
        let close = value.find('"').ok_or(format!("<{tag}>: open quote"))?;
        check_text(&value[..close], false)?;
        rest = value[close + 1..].trim_start();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points() -> Vec<Point> {
        vec![
            Point {
                baseline_s: 12.0,
                config_s: 0.5,
                solved: true,
            },
            Point {
                baseline_s: 0.0,
                config_s: 300.0,
                solved: false,
            },
        ]
    }

    #[test]
    fn plots_are_well_formed() {
        let s = scatter("s4 vs baseline <&>", "baseline", "s4", &points());
        well_formed(&s).unwrap();
        assert_eq!(s.matches("<circle").count(), 2 + 2, "points and legend");
        assert!(s.contains("&lt;&amp;&gt;"));
        let q = quantile(
            "quantiles",
            &[("a".into(), vec![0.1, 2.0, 30.0]), ("b".into(), vec![4.0])],
        );
        well_formed(&q).unwrap();
        assert_eq!(q.matches("<polyline").count(), 2);
        assert!(q.contains("a (3 modules)"), "{q}");
        well_formed(&scatter("empty", "b", "c", &[])).unwrap();
        well_formed(&quantile("empty", &[])).unwrap();
    }

    #[test]
    fn the_check_finds_broken_xml() {
        let ok = r#"<?xml version="1.0"?><svg a="1"><g><line x="2"/></g><!-- c --></svg>"#;
        well_formed(ok).unwrap();
        for bad in [
            "<svg><g></svg>",
            "<svg></svg><svg></svg>",
            "<svg a=1></svg>",
            "<svg a=\"1\" a=\"2\"></svg>",
            "<svg>a & b</svg>",
            "<g></g>",
            "<svg><text>x</svg>",
            "<svg></svg> x",
            "<svg",
            "",
        ] {
            assert!(well_formed(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn log_axes_cover_whole_decades() {
        let a = LogAxis::covering([0.05, 120.0].into_iter(), 0.0, 400.0);
        assert_eq!((a.lo, a.hi), (-2, 3));
        assert_eq!(a.px(0.01), 0.0);
        assert_eq!(a.px(1000.0), 400.0);
        assert_eq!(a.px(0.0), 0.0, "zero sits at the lower end");
        let labels: Vec<String> = a.ticks().into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels, ["0.01", "0.1", "1", "10", "100", "1000"]);
        let one = LogAxis::covering([10.0].into_iter(), 0.0, 1.0);
        assert_eq!((one.lo, one.hi), (1, 2));
        assert_eq!(nice_step(3.0), 1.0);
        assert_eq!(nice_step(40.0), 10.0);
        assert_eq!(nice_step(250.0), 50.0);
    }
}
