//! A clipped drawing surface over a rectangle of the window's `0x00RRGGBB`
//! buffer: the few primitives the panel needs (rectangles, lines, ellipse
//! arcs, glyph bits), written straight into the `u32` pixels.
//!
//! No plotting library: the panel is redrawn every frame inside a 2 ms budget,
//! so primitives write opaque pixels (translucency is folded into the colour
//! beforehand, against the known background) and never allocate.

/// A rectangle of a larger pixel buffer; every primitive clips to it.
pub struct Canvas<'a> {
    buf: &'a mut [u32],
    stride: usize,
    x0: usize,
    y0: usize,
    /// Width and height of the drawable rectangle, in pixels.
    pub w: i32,
    pub h: i32,
}

impl<'a> Canvas<'a> {
    /// The rectangle `(x0, y0, w, h)` of `buf`, whose rows are `stride` pixels.
    pub fn new(
        buf: &'a mut [u32],
        stride: usize,
        x0: usize,
        y0: usize,
        w: usize,
        h: usize,
    ) -> Canvas<'a> {
        let rows = buf.len() / stride.max(1);
        let w = w.min(stride.saturating_sub(x0));
        let h = h.min(rows.saturating_sub(y0));
        Canvas {
            buf,
            stride,
            x0,
            y0,
            w: w as i32,
            h: h as i32,
        }
    }

    /// One pixel (ignored outside the rectangle).
    #[inline]
    pub fn put(&mut self, x: i32, y: i32, color: u32) {
        if x >= 0 && y >= 0 && x < self.w && y < self.h {
            self.buf[(self.y0 + y as usize) * self.stride + self.x0 + x as usize] = color;
        }
    }

    /// The pixel at `(x, y)`, or 0 outside the rectangle.
    pub fn get(&self, x: i32, y: i32) -> u32 {
        if x >= 0 && y >= 0 && x < self.w && y < self.h {
            self.buf[(self.y0 + y as usize) * self.stride + self.x0 + x as usize]
        } else {
            0
        }
    }

    /// A filled rectangle, clipped.
    pub fn fill_rect(&mut self, x: i32, y: i32, w: i32, h: i32, color: u32) {
        let (xa, xb) = (x.max(0), (x + w).min(self.w));
        let (ya, yb) = (y.max(0), (y + h).min(self.h));
        if xa >= xb || ya >= yb {
            return;
        }
        for row in ya..yb {
            let start = (self.y0 + row as usize) * self.stride + self.x0;
            self.buf[start + xa as usize..start + xb as usize].fill(color);
        }
    }

    /// Copies a `w`×`h` image (`pixels`, row-major) with its top-left
    /// corner at `(x, y)`, clipped; an image shorter than `w`×`h` is
    /// copied as far as it goes.
    pub fn blit(&mut self, x: i32, y: i32, w: i32, h: i32, pixels: &[u32]) {
        let (xa, xb) = (x.max(0), (x + w).min(self.w));
        if xa >= xb || w <= 0 {
            return;
        }
        for row in y.max(0)..(y + h).min(self.h) {
            let from = ((row - y) * w + (xa - x)) as usize;
            let Some(src) = pixels.get(from..from + (xb - xa) as usize) else {
                return;
            };
            let start = (self.y0 + row as usize) * self.stride + self.x0;
            self.buf[start + xa as usize..start + xb as usize].copy_from_slice(src);
        }
    }

    /// The outline of a rectangle, `t` pixels thick.
    pub fn stroke_rect(&mut self, x: i32, y: i32, w: i32, h: i32, t: i32, color: u32) {
        self.fill_rect(x, y, w, t, color);
        self.fill_rect(x, y + h - t, w, t, color);
        self.fill_rect(x, y, t, h, color);
        self.fill_rect(x + w - t, y, t, h, color);
    }

    /// A straight line (Bresenham) with a square brush of side `t`.
    pub fn line(&mut self, (x1, y1): (i32, i32), (x2, y2): (i32, i32), t: i32, color: u32) {
        let (dx, dy) = ((x2 - x1).abs(), -(y2 - y1).abs());
        let (sx, sy) = (if x1 < x2 { 1 } else { -1 }, if y1 < y2 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (x1, y1, dx + dy);
        let half = t / 2;
        loop {
            self.fill_rect(x - half, y - half, t, t, color);
            if x == x2 && y == y2 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// Half an axis-aligned ellipse centred on `(cx, cy)` with radii
    /// `(rx, ry)`: the right half if `right`, else the left half, drawn from
    /// top to bottom with a square brush of side `t`.
    ///
    /// Stepped by angle with a rotation recurrence (no trigonometry per
    /// step), one step per pixel of arc length, so the cost is the arc's
    /// length times the brush area.
    #[allow(clippy::too_many_arguments)]
    pub fn half_ellipse(
        &mut self,
        cx: f32,
        cy: f32,
        rx: f32,
        ry: f32,
        right: bool,
        t: i32,
        color: u32,
    ) {
        // Ramanujan-ish half perimeter, good to a few percent: enough for a
        // step count.
        let half_perimeter = std::f32::consts::PI * ((rx * rx + ry * ry) * 0.5).sqrt();
        let steps = (half_perimeter * 1.2).ceil().max(4.0) as u32;
        let d = std::f32::consts::PI / steps as f32;
        let (sd, cd) = d.sin_cos();
        // θ runs from -π/2 (top) to π/2 (bottom): (cos θ, sin θ) starts at (0, -1).
        let (mut c, mut s) = (0.0f32, -1.0f32);
        let side = if right { 1.0 } else { -1.0 };
        let half = t / 2;
        let (mut last_x, mut last_y) = (i32::MIN, i32::MIN);
        for _ in 0..=steps {
            let x = (cx + side * rx * c).round() as i32;
            let y = (cy + ry * s).round() as i32;
            if x != last_x || y != last_y {
                if t == 1 {
                    self.put(x, y, color);
                } else {
                    self.fill_rect(x - half, y - half, t, t, color);
                }
                last_x = x;
                last_y = y;
            }
            let (nc, ns) = (c * cd - s * sd, s * cd + c * sd);
            c = nc;
            s = ns;
        }
    }

    /// Sets the pixels of a 1-bit-per-pixel bitmap row: bit 0 is the
    /// leftmost pixel (the font8x8 convention), each bit a `scale`×`scale`
    /// square.
    pub fn bits(&mut self, x: i32, y: i32, bits: u8, scale: i32, color: u32) {
        let mut b = bits;
        let mut col = 0;
        while b != 0 {
            if b & 1 != 0 {
                if scale == 1 {
                    self.put(x + col, y, color);
                } else {
                    self.fill_rect(x + col * scale, y, scale, scale, color);
                }
            }
            b >>= 1;
            col += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_to_the_rectangle() {
        let mut buf = vec![0u32; 10 * 10];
        let mut c = Canvas::new(&mut buf, 10, 2, 2, 4, 4);
        c.fill_rect(-5, -5, 100, 100, 7);
        c.put(4, 0, 9);
        c.line((0, 0), (20, 20), 3, 5);
        let painted: usize = buf.iter().filter(|&&p| p != 0).count();
        assert_eq!(painted, 16);
        assert_eq!(buf[2 * 10 + 2], 5);
        assert_eq!(buf[2 * 10 + 6], 0);
    }

    #[test]
    fn blit_clips_and_tolerates_short_images() {
        let mut buf = vec![0u32; 6 * 4];
        let mut c = Canvas::new(&mut buf, 6, 1, 0, 4, 4);
        // A 3×2 image at (-1, 1): its first column is cut off.
        c.blit(-1, 1, 3, 2, &[1, 2, 3, 4, 5, 6]);
        assert_eq!(c.get(0, 1), 2);
        assert_eq!(c.get(1, 2), 6);
        assert_eq!(c.get(0, 0), 0);
        // Too few pixels: copies what there is, no panic.
        c.blit(0, 0, 4, 4, &[9; 5]);
        assert_eq!(c.get(3, 0), 9);
        assert_eq!(c.get(0, 1), 2);
    }

    #[test]
    fn half_ellipse_reaches_both_ends_and_its_side() {
        let mut buf = vec![0u32; 40 * 40];
        let mut c = Canvas::new(&mut buf, 40, 0, 0, 40, 40);
        c.half_ellipse(20.0, 20.0, 10.0, 15.0, true, 1, 1);
        assert_eq!(c.get(20, 5), 1);
        assert_eq!(c.get(20, 35), 1);
        assert_eq!(c.get(30, 20), 1);
        assert_eq!(c.get(10, 20), 0);
    }
}
