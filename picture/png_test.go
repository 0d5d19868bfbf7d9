package picture

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clubledger/ledger/internal/bounded"
	"github.com/clubledger/ledger/rules/geom"
)

// decodePNG paints svg and decodes the PNG, checking that it is as large
// in pixels as the SVG's width and height say.
func decodePNG(t *testing.T, svg []byte) image.Image {
	t.Helper()
	b, err := PNG(svg)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	root := Parse(t, svg)[0]
	w, _ := strconv.ParseFloat(root.Attrs["width"], 64)
	h, _ := strconv.ParseFloat(root.Attrs["height"], 64)
	if got := img.Bounds().Size(); got.X != int(w+0.5) || got.Y != int(h+0.5) {
		t.Fatalf("PNG is %dx%d pixels, the SVG %gx%g", got.X, got.Y, w, h)
	}
	return img
}

// near: the pixel at (x, y) is within tol of the colour hex on each channel.
func near(t *testing.T, img image.Image, x, y int, hex string, tol int, what string) {
	t.Helper()
	want, ok := colour(hex, 1)
	if !ok {
		t.Fatalf("bad colour %q", hex)
	}
	wr, wg, wb, _ := want.RGBA()
	r, g, b, _ := img.At(x, y).RGBA()
	d := func(a, b uint32) int { return absInt(int(a>>8) - int(b>>8)) }
	if d(r, wr) > tol || d(g, wg) > tol || d(b, wb) > tol {
		t.Errorf("%s at pixel (%d, %d) is #%02x%02x%02x, want %s", what, x, y, r>>8, g>>8, b>>8, hex)
	}
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// dark counts the pixels of the rectangle r darker than 100 on every
// channel: ink, as text is drawn.
func dark(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c.R < 100 && c.G < 100 && c.B < 100 {
				n++
			}
		}
	}
	return n
}

// TestPNGPaintsThePicture: the PNG of a battle is the SVG's size, with the
// table's green where the table is empty, each general's disc in his
// side's colour at his position, each unit's base in its side's colour,
// and the title drawn as text in the band above the table, in Latin and
// in Cyrillic (the Go fonts hold both).
func TestPNGPaintsThePicture(t *testing.T) {
	for _, title := range []string{"Aspern-Essling", "Битва при Асперне"} {
		t.Run(title, func(t *testing.T) {
			s := testState()
			s.Name = title
			const scale = 10.0
			img := decodePNG(t, Render(s, Options{Scale: scale}))
			// A point of the table (x, y) is at pixel (x*scale + left
			// margin, (depth - y)*scale + top margin and title band).
			px := func(v geom.Vec) (int, int) {
				return int(v.X*scale + marginLeftPx), int((s.Table.Depth-v.Y)*scale + marginTopPx + titleBandPx)
			}
			x, y := px(geom.Vec{X: 61.3, Y: 13.7})
			near(t, img, x, y, tableFill, 6, "the empty table")
			x, y = px(s.Sides[1].Brigades[0].General.Position)
			near(t, img, x, y, Palette[1], 12, "blue's general")
			x, y = px(s.Sides[0].CInC.Position)
			near(t, img, x, y, Palette[0], 12, "red's C-in-C")
			x, y = px(s.Units["b2"].Base.Center)
			near(t, img, x, y, Palette[1], 40, "blue's unit b2")
			x, y = px(geom.Vec{X: -1, Y: 47}) // left of the table, below the title band
			near(t, img, x, y, "#ffffff", 0, "the margin")
			band := image.Rect(0, 0, img.Bounds().Dx(), int(marginTopPx+titleBandPx))
			if n := dark(img, band); n < 50 {
				t.Errorf("the title band holds %d dark pixels: the title %q is not drawn", n, title)
			}
		})
	}
}

// TestPNGPaintsTheReview: a review's three panels and its caption are
// painted at the review's size, the caption as text.
func TestPNGPaintsTheReview(t *testing.T) {
	s := testState()
	svg := RenderReview(Review{Before: s, After: s, Titles: [3]string{"Before", "After", ""}, Caption: []string{"Марьяж: a caption line"}, Scale: 8})
	img := decodePNG(t, svg)
	b := img.Bounds()
	if n := dark(img, image.Rect(0, b.Max.Y-30, b.Dx(), b.Max.Y)); n < 30 {
		t.Errorf("the caption's band holds %d dark pixels", n)
	}
}

// TestPNGTooLarge: a picture larger than MaxPNGPixels is refused before
// any of it is painted (nothing near its size is allocated), as is an SVG
// that is not one.
func TestPNGTooLarge(t *testing.T) {
	huge := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := PNG(huge)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrPNGTooLarge) {
		t.Fatalf("a 100000x100000 picture: %v, want ErrPNGTooLarge", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("refusing a too large picture allocated %d bytes", got)
	}
	many := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">` + strings.Repeat("<g/>", maxPNGElements+1) + `</svg>`)
	if _, err := PNG(many); !errors.Is(err, ErrPNGTooLarge) {
		t.Errorf("%d elements: %v, want ErrPNGTooLarge", maxPNGElements+1, err)
	}
	for _, bad := range []string{"", "not xml", "<svg", `<g width="10"/>`} {
		if _, err := PNG([]byte(bad)); err == nil {
			t.Errorf("PNG(%q) painted a picture", bad)
		}
	}
}

// FuzzPNG: a battle whose names are anything a player can type, drawn at
// any scale the report may use, paints as a PNG in bounded time and
// memory (or is refused as too large).
func FuzzPNG(f *testing.F) {
	for i, s := range hostile {
		f.Add(s, hostile[(i+5)%len(hostile)], 4.0)
	}
	f.Add("x", "y", 100.0)
	f.Fuzz(func(t *testing.T, name, text string, scale float64) {
		if !utf8.ValidString(name) || !utf8.ValidString(text) || !(scale > 0 && scale <= 100) {
			return // the door refuses these
		}
		s := testState()
		s.Name = name
		s.Units["b2"].Name = text
		svg := Render(s, Options{Scale: scale})
		bounded.Check(t, bounded.For(len(svg), 80<<20, 4096, 10*time.Second), "png", func() {
			if _, err := PNG(svg); err != nil && !errors.Is(err, ErrPNGTooLarge) {
				t.Errorf("PNG: %v", err)
			}
		})
	})
}
