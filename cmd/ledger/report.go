package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clubledger/ledger/events"
	"github.com/clubledger/ledger/report"
)

func init() {
	extraCommands = append(extraCommands, func(c *cli) *cobra.Command { return c.reportCommand() })
}

func (c *cli) reportCommand() *cobra.Command {
	var format, file, pictures, pictureFormat string
	var maxPictures int
	cmd := &cobra.Command{
		Use:   "report CAMPAIGN/BATTLE | report CAMPAIGN",
		Short: "Write a battle's after-action report: HTML, or a forum post in BBCode or Markdown with its pictures beside it",
		Long: `Report writes the after-action report of one battle, as you may see it
(docs/report.md): the sides, their commanders and the table; a picture of
the battlefield at the start of each turn and at each decisive moment; the
narrative of each turn in the log's own words; the disputes and their
rulings; the losses; the victory points and how they were counted; each
person's dice luck against the exact odds; and the battle's head, with the
ledger audit command that checks the report against the ledger.

--format html (the default) is one self-contained file: pictures inline as
SVG, nothing loaded from the network, ready to print to PDF. --format
bbcode (phpBB) and --format markdown are a forum post: its pictures are
written as PNG files beside it (--pictures DIR; default: the folder of -f),
named as the post names them, ready to attach (--picture-format svg writes
SVG instead). --lang ru writes it in Russian. A player's
report before the battle ends leaves out what the player may not see, as
every other view does. With CAMPAIGN alone, the whole campaign: its
standings, then each battle's report (its first 50 battles).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			camp, battle, err := splitKey(args[0], false)
			if err != nil {
				return err
			}
			if !slices.Contains(report.Formats, format) {
				return usagef("--format %q: html, bbcode or markdown", format)
			}
			if !slices.Contains(report.PictureFormats, pictureFormat) {
				return usagef("--picture-format %q: png or svg", pictureFormat)
			}
			if maxPictures < 0 {
				return usagef("--max-pictures %d: 0 (the bound, %d) or more", maxPictures, report.MaxPictures)
			}
			toFile := file != "" && file != "-"
			if pictures == "" && toFile && format != report.HTML {
				pictures = filepath.Dir(file)
			}
			api, release, err := c.api()
			if err != nil {
				return err
			}
			defer release()
			opt := report.Options{Lang: c.lang(), MaxPictures: maxPictures, PictureFormat: pictureFormat}
			var rep interface {
				Write(io.Writer, string) error
				WritePictures(func(string) (io.WriteCloser, error)) error
			}
			npictures := 0
			if battle == "" {
				cr, err := report.BuildCampaign(c.ctx, api, messages(), camp, opt)
				if err != nil {
					return err
				}
				rep, npictures = cr, len(cr.Pictures())
			} else {
				br, err := report.Build(c.ctx, api, messages(), events.Key{Campaign: camp, Battle: battle}, opt)
				if err != nil {
					return err
				}
				rep, npictures = br, len(br.Pictures)
			}
			var w io.Writer = c.stdout
			var f *os.File
			if toFile {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					return err
				}
				if f, err = os.Create(file); err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			if err := rep.Write(w, format); err != nil {
				return err
			}
			if f != nil {
				if err := f.Close(); err != nil {
					return err
				}
			}
			if pictures != "" && format != report.HTML {
				if err := os.MkdirAll(pictures, 0o755); err != nil {
					return err
				}
				err := rep.WritePictures(func(name string) (io.WriteCloser, error) {
					return os.Create(filepath.Join(pictures, name))
				})
				if err != nil {
					return err
				}
			}
			if toFile {
				w := c.words()
				fmt.Fprintln(c.stdout, w.t("report.written", "file", file))
				if pictures != "" && format != report.HTML {
					fmt.Fprintln(c.stdout, w.t("report.pictures", "n", npictures, "format", strings.ToUpper(pictureFormat)))
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", report.HTML, "html (one self-contained file), bbcode (phpBB) or markdown")
	cmd.Flags().StringVarP(&file, "file", "f", "", "write the report to this file (default: standard output)")
	cmd.Flags().StringVar(&pictures, "pictures", "", "with bbcode or markdown: write the pictures into this folder (default: the folder of -f)")
	cmd.Flags().StringVar(&pictureFormat, "picture-format", report.PNG, "the pictures' files beside a forum post: png (for the forum) or svg")
	cmd.Flags().IntVar(&maxPictures, "max-pictures", 0, "draw at most this many pictures (0: the report's bound)")
	return cmd
}
