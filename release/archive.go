package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// An archiver writes the archive of one platform: a directory named like
// the archive holding the binary and files, each with mtime, so that the
// same inputs give the same bytes.
type archiver struct {
	mtime time.Time
	files []string // beside the binary, from the current directory
}

// archive writes dir/name.tar.gz (dir/name.zip for Windows) with the binary
// bin of t, and returns its file name.
func (a archiver) archive(dir, name string, t target, bin string) (string, error) {
	entries := []entry{{name: name + "/" + t.exe(), path: bin, mode: 0o755}}
	for _, f := range a.files {
		entries = append(entries, entry{name: name + "/" + f, path: f, mode: 0o644})
	}
	file := name + ".tar.gz"
	write := a.writeTarGz
	if t.goos == "windows" {
		file = name + ".zip"
		write = a.writeZip
	}
	f, err := os.Create(filepath.Join(dir, file))
	if err != nil {
		return "", err
	}
	if err := write(f, entries); err != nil {
		f.Close()
		return "", fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	return file, f.Close()
}

// An entry is a file to archive: its name in the archive, where it is read
// from, and its mode.
type entry struct {
	name, path string
	mode       int64
}

func (a archiver) writeTarGz(w io.Writer, entries []entry) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		data, err := os.ReadFile(e.path)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: e.name, Mode: e.mode, Size: int64(len(data)),
			ModTime: a.mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func (a archiver) writeZip(w io.Writer, entries []entry) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		data, err := os.ReadFile(e.path)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: a.mtime}
		hdr.SetMode(os.FileMode(e.mode))
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeSums writes dir/SHA256SUMS for the files, in the format that
// "sha256sum -c" and "shasum -a 256 -c" check.
func writeSums(dir string, files []string) error {
	files = slices.Sorted(slices.Values(files))
	var b strings.Builder
	for _, name := range files {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), name)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}
