package picture

// PNG: the pictures as a forum shows them. Forums rarely show an SVG
// attachment (issue 28), so a report's forum post attaches PNG files, each
// drawn from the very SVG the page and the HTML report show: this file
// reads that SVG (the elements and attributes Render and RenderReview
// write, and nothing else) and paints it with github.com/fogleman/gg, in
// the Go fonts (golang.org/x/image/font/gofont: Latin, Greek and Cyrillic,
// embedded in the binary, so that no system font is needed).

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/fogleman/gg"
	"github.com/golang/freetype/truetype"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/goregular"
)

// MaxPNGPixels is the largest picture PNG paints, in pixels (width times
// height): 16 Mi pixels, 64 MiB of image in memory. A picture at the
// report's scale is well under one million.
const MaxPNGPixels = 16 << 20

// maxPNGElements bounds the elements read from one SVG; a picture of the
// largest battle the door accepts has some thousands.
const maxPNGElements = 200_000

// ErrPNGTooLarge is a picture larger than MaxPNGPixels, or with more
// elements than a picture of the ledger's can have.
var ErrPNGTooLarge = errors.New("picture too large to paint")

// PNG paints an SVG picture of Render or RenderReview as a PNG of the
// same size in pixels (its width and height attributes), on white. An
// SVG it cannot read, or one larger than MaxPNGPixels, is an error.
func PNG(svg []byte) ([]byte, error) {
	r := &raster{}
	if err := r.read(svg); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := png.Encode(&out, r.dc.Image()); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// aff is an affine transform as SVG writes one, matrix(a b c d e f): a
// point (x, y) goes to (a x + c y + e, b x + d y + f).
type aff [6]float64

var identity = aff{1, 0, 0, 1, 0, 0}

// then is the transform that applies n first, then t (SVG's "t n").
func (t aff) then(n aff) aff {
	return aff{
		t[0]*n[0] + t[2]*n[1], t[1]*n[0] + t[3]*n[1],
		t[0]*n[2] + t[2]*n[3], t[1]*n[2] + t[3]*n[3],
		t[0]*n[4] + t[2]*n[5] + t[4], t[1]*n[4] + t[3]*n[5] + t[5],
	}
}

func (t aff) apply(x, y float64) (float64, float64) {
	return t[0]*x + t[2]*y + t[4], t[1]*x + t[3]*y + t[5]
}

// scale is the transform's mean scale: how much a length grows.
func (t aff) scale() float64 { return math.Sqrt(math.Abs(t[0]*t[3] - t[1]*t[2])) }

// paint is what an element inherits from its parents, as SVG's
// presentation attributes do.
type paint struct {
	m                   aff
	fill, stroke        string
	opacity             float64 // the product of the groups' opacity
	fillOp, strokeOp    float64
	width               float64
	nonScaling          bool
	fontSize            float64
	anchor, baseline    string
	haloFirst, italic   bool
	dash                []float64
	roundJoin           bool
	inText, textDropped bool
}

type raster struct {
	dc    *gg.Context
	w, h  int
	faces map[faceKey]font.Face
	n     int
}

type faceKey struct {
	italic bool
	q      int // the size in quarter pixels
}

var (
	fontsOnce       sync.Once
	regular, italic *truetype.Font
	fontsErr        error
)

func goFonts() (*truetype.Font, *truetype.Font, error) {
	fontsOnce.Do(func() {
		if regular, fontsErr = truetype.Parse(goregular.TTF); fontsErr == nil {
			italic, fontsErr = truetype.Parse(goitalic.TTF)
		}
	})
	return regular, italic, fontsErr
}

func (r *raster) face(it bool, px float64) (font.Face, error) {
	k := faceKey{it, int(math.Round(px * 4))}
	if f := r.faces[k]; f != nil {
		return f, nil
	}
	reg, ita, err := goFonts()
	if err != nil {
		return nil, err
	}
	f := reg
	if it {
		f = ita
	}
	if r.faces == nil {
		r.faces = map[faceKey]font.Face{}
	}
	face := truetype.NewFace(f, &truetype.Options{Size: float64(k.q) / 4, DPI: 72, Hinting: font.HintingNone})
	r.faces[k] = face
	return face, nil
}

func (r *raster) read(svg []byte) error {
	d := xml.NewDecoder(bytes.NewReader(svg))
	stack := []paint{{m: identity, fill: "#000", stroke: "none", opacity: 1, fillOp: 1, strokeOp: 1, width: 1, fontSize: 16, anchor: "start"}}
	var text strings.Builder
	var at map[string]string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("picture: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			r.n++
			if r.n > maxPNGElements {
				return fmt.Errorf("%w: more than %d elements", ErrPNGTooLarge, maxPNGElements)
			}
			a := make(map[string]string, len(t.Attr))
			for _, x := range t.Attr {
				a[x.Name.Local] = x.Value
			}
			top := stack[len(stack)-1]
			st, err := r.enter(t.Name.Local, a, top)
			if err != nil {
				return err
			}
			stack = append(stack, st)
			if t.Name.Local == "text" {
				text.Reset()
				at = a
			}
		case xml.CharData:
			if st := stack[len(stack)-1]; st.inText && !st.textDropped {
				text.Write(t)
			}
		case xml.EndElement:
			st := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if t.Name.Local == "text" && r.dc != nil {
				if err := r.text(strings.TrimSpace(text.String()), at, st); err != nil {
					return err
				}
			}
		}
	}
	if r.dc == nil {
		return errors.New("picture: no svg element")
	}
	return nil
}

// enter is an element's paint, after drawing it when it is a shape.
func (r *raster) enter(name string, a map[string]string, st paint) (paint, error) {
	st.inText = st.inText || name == "text"
	st.textDropped = st.textDropped || name == "title"
	if v, ok := a["fill"]; ok {
		st.fill = v
	}
	if v, ok := a["stroke"]; ok {
		st.stroke = v
	}
	if v, ok := a["stroke-width"]; ok {
		st.width = num(v)
	}
	if v, ok := a["opacity"]; ok {
		st.opacity *= unit(v)
	}
	if v, ok := a["fill-opacity"]; ok {
		st.fillOp = unit(v)
	}
	if v, ok := a["stroke-opacity"]; ok {
		st.strokeOp = unit(v)
	}
	if v, ok := a["vector-effect"]; ok {
		st.nonScaling = v == "non-scaling-stroke"
	}
	if v, ok := a["font-size"]; ok {
		st.fontSize = num(v)
	}
	if v, ok := a["font-style"]; ok {
		st.italic = v == "italic"
	}
	if v, ok := a["text-anchor"]; ok {
		st.anchor = v
	}
	if v, ok := a["dominant-baseline"]; ok {
		st.baseline = v
	}
	if v, ok := a["paint-order"]; ok {
		st.haloFirst = strings.HasPrefix(v, "stroke")
	}
	if v, ok := a["stroke-linejoin"]; ok {
		st.roundJoin = v == "round"
	}
	if v, ok := a["stroke-dasharray"]; ok {
		st.dash = nums(v)
	}
	if v, ok := a["transform"]; ok {
		t, err := transform(v)
		if err != nil {
			return st, err
		}
		st.m = st.m.then(t)
	}
	switch name {
	case "svg":
		return r.svg(a, st)
	case "rect":
		x, y, w, h := num(a["x"]), num(a["y"]), num(a["width"]), num(a["height"])
		r.shape(st, [][2]float64{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}}, true)
	case "line":
		r.shape(st, [][2]float64{{num(a["x1"]), num(a["y1"])}, {num(a["x2"]), num(a["y2"])}}, false)
	case "polyline", "polygon":
		v := nums(a["points"])
		pts := make([][2]float64, 0, len(v)/2)
		for i := 0; i+1 < len(v); i += 2 {
			pts = append(pts, [2]float64{v[i], v[i+1]})
		}
		r.shape(st, pts, name == "polygon")
	case "circle":
		if r.dc != nil {
			x, y := st.m.apply(num(a["cx"]), num(a["cy"]))
			r.dc.DrawCircle(x, y, num(a["r"])*st.m.scale())
			r.finish(st, true)
		}
	}
	return st, nil
}

// svg maps an svg element's viewBox onto its box (x, y, width, height),
// preserving its aspect ratio as SVG's default does (xMidYMid meet). The
// outermost one makes the canvas, its width and height in pixels.
func (r *raster) svg(a map[string]string, st paint) (paint, error) {
	w, h := num(a["width"]), num(a["height"])
	if r.dc == nil {
		if !(w >= 1 && h >= 1) || w*h > MaxPNGPixels {
			return st, fmt.Errorf("%w: %.0f by %.0f pixels (at most %d in all)", ErrPNGTooLarge, w, h, MaxPNGPixels)
		}
		r.w, r.h = int(math.Ceil(w)), int(math.Ceil(h))
		r.dc = gg.NewContext(r.w, r.h)
		r.dc.SetColor(color.White)
		r.dc.Clear()
	}
	st.m = st.m.then(aff{1, 0, 0, 1, num(a["x"]), num(a["y"])})
	if vb := nums(a["viewBox"]); len(vb) == 4 && vb[2] > 0 && vb[3] > 0 && w > 0 && h > 0 {
		s := math.Min(w/vb[2], h/vb[3])
		dx, dy := (w-vb[2]*s)/2, (h-vb[3]*s)/2
		st.m = st.m.then(aff{s, 0, 0, s, dx - vb[0]*s, dy - vb[1]*s})
	}
	return st, nil
}

// shape paints a polygon (closed) or a line.
func (r *raster) shape(st paint, pts [][2]float64, closed bool) {
	if r.dc == nil || len(pts) < 2 {
		return
	}
	for i, p := range pts {
		x, y := st.m.apply(p[0], p[1])
		if i == 0 {
			r.dc.MoveTo(x, y)
		} else {
			r.dc.LineTo(x, y)
		}
	}
	if closed {
		r.dc.ClosePath()
	}
	r.finish(st, closed)
}

// finish fills (when it may) and strokes the current path, then clears it.
func (r *raster) finish(st paint, fill bool) {
	dc := r.dc
	if c, ok := colour(st.fill, st.fillOp*st.opacity); fill && ok {
		dc.SetColor(c)
		dc.FillPreserve()
	}
	if c, ok := colour(st.stroke, st.strokeOp*st.opacity); ok && st.width > 0 {
		k := 1.0
		if !st.nonScaling {
			k = st.m.scale()
		}
		dc.SetColor(c)
		dc.SetLineWidth(st.width * k)
		dash := make([]float64, 0, len(st.dash))
		for _, v := range st.dash {
			if v > 0 {
				dash = append(dash, v*k)
			}
		}
		dc.SetDash(dash...)
		dc.SetLineCap(gg.LineCapButt) // SVG's default
		if st.roundJoin {
			dc.SetLineJoin(gg.LineJoinRound)
		} else {
			dc.SetLineJoin(gg.LineJoinBevel)
		}
		dc.StrokePreserve()
	}
	dc.ClearPath()
}

// text paints a text element: its halo first when it has one (paint-order
// stroke: the labels' light outline), then its letters, anchored at x, y as
// SVG anchors them (start, middle, end; the baseline, or the middle of the
// letters for dominant-baseline central).
func (r *raster) text(s string, a map[string]string, st paint) error {
	px := st.fontSize * st.m.scale()
	if s == "" || px < 1 || px > 4096 {
		return nil
	}
	face, err := r.face(st.italic, px)
	if err != nil {
		return err
	}
	dc := r.dc
	dc.SetFontFace(face)
	x, y := st.m.apply(num(a["x"]), num(a["y"]))
	w, _ := dc.MeasureString(s)
	switch st.anchor {
	case "middle":
		x -= w / 2
	case "end":
		x -= w
	}
	if st.baseline == "central" || st.baseline == "middle" {
		m := face.Metrics()
		y += float64(m.Ascent-m.Descent) / 64 / 2
	}
	if c, ok := colour(st.stroke, st.strokeOp*st.opacity); ok && st.haloFirst && st.width > 0 {
		k := 1.0
		if !st.nonScaling {
			k = st.m.scale()
		}
		rad := st.width * k / 2
		dc.SetColor(c)
		for i := range 8 {
			an := float64(i) * math.Pi / 4
			dc.DrawString(s, x+rad*math.Cos(an), y+rad*math.Sin(an))
		}
	}
	if c, ok := colour(st.fill, st.fillOp*st.opacity); ok {
		dc.SetColor(c)
		dc.DrawString(s, x, y)
	}
	return nil
}

// transform reads an SVG transform list: translate, rotate (in degrees,
// about the origin or a point), scale and matrix.
func transform(s string) (aff, error) {
	t := identity
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		open := strings.IndexByte(s, '(')
		end := strings.IndexByte(s, ')')
		if open < 0 || end < open {
			return t, fmt.Errorf("picture: transform %q", s)
		}
		name, v := strings.TrimSpace(s[:open]), nums(s[open+1:end])
		s = strings.TrimLeft(s[end+1:], ", ")
		arg := func(i int, def float64) float64 {
			if i < len(v) {
				return v[i]
			}
			return def
		}
		var n aff
		switch name {
		case "translate":
			n = aff{1, 0, 0, 1, arg(0, 0), arg(1, 0)}
		case "scale":
			sx := arg(0, 1)
			n = aff{sx, 0, 0, arg(1, sx), 0, 0}
		case "rotate":
			an := arg(0, 0) * math.Pi / 180
			c, sn := math.Cos(an), math.Sin(an)
			cx, cy := arg(1, 0), arg(2, 0)
			n = aff{1, 0, 0, 1, cx, cy}.then(aff{c, sn, -sn, c, 0, 0}).then(aff{1, 0, 0, 1, -cx, -cy})
		case "matrix":
			if len(v) != 6 {
				return t, fmt.Errorf("picture: transform %q", name)
			}
			n = aff{v[0], v[1], v[2], v[3], v[4], v[5]}
		default:
			return t, fmt.Errorf("picture: transform %q", name)
		}
		t = t.then(n)
	}
	return t, nil
}

// colour reads #rgb, #rrggbb, white or black at an opacity; none (or any
// other word) paints nothing.
func colour(s string, alpha float64) (color.Color, bool) {
	switch s {
	case "white":
		s = "#fff"
	case "black":
		s = "#000"
	}
	if len(s) == 4 && s[0] == '#' {
		s = "#" + strings.Repeat(s[1:2], 2) + strings.Repeat(s[2:3], 2) + strings.Repeat(s[3:4], 2)
	}
	if len(s) != 7 || s[0] != '#' || alpha <= 0 {
		return nil, false
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return nil, false
	}
	a := math.Min(alpha, 1)
	// Premultiplied, as color.RGBA is.
	return color.RGBA{R: uint8(float64(v>>16) * a), G: uint8(float64(v>>8&0xff) * a), B: uint8(float64(v&0xff) * a), A: uint8(255 * a)}, true
}

func num(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "px"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// unit is an opacity, clamped to 0..1.
func unit(s string) float64 { return math.Max(0, math.Min(1, num(s))) }

func nums(s string) []float64 {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	out := make([]float64, len(f))
	for i, x := range f {
		out[i] = num(x)
	}
	return out
}
