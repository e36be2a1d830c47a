package main

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// thinMachO returns a minimal 64-bit Mach-O executable for cpu, with pad
// bytes of content after the header.
func thinMachO(cpu macho.Cpu, sub uint32, pad int) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, macho.FileHeader{Magic: macho.Magic64, Cpu: cpu, SubCpu: sub, Type: macho.TypeExec})
	binary.Write(&b, binary.LittleEndian, uint32(0)) // reserved
	b.Write(bytes.Repeat([]byte{byte(cpu)}, pad))
	return b.Bytes()
}

// TestFat writes a universal binary of an amd64 and an arm64 slice and
// reads it back with debug/macho: the slices as lipo lays them out (x86-64
// first at a 4 KiB boundary, arm64 at 16 KiB), byte for byte.
func TestFat(t *testing.T) {
	dir := t.TempDir()
	amd, arm := filepath.Join(dir, "amd64"), filepath.Join(dir, "arm64")
	amdData, armData := thinMachO(macho.CpuAmd64, 3, 5000), thinMachO(macho.CpuArm64, 0, 7000)
	os.WriteFile(amd, amdData, 0o755)
	os.WriteFile(arm, armData, 0o755)
	out := filepath.Join(dir, "fat")
	if err := writeFat(out, arm, amd); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	if binary.BigEndian.Uint32(data) != 0xcafebabe {
		t.Fatalf("magic %x", data[:4])
	}
	ff, err := macho.NewFatFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer ff.Close()
	want := []struct {
		cpu   macho.Cpu
		sub   uint32
		align uint32
		off   uint32
		data  []byte
	}{
		{macho.CpuAmd64, 3, 12, 1 << 12, amdData},
		{macho.CpuArm64, 0, 14, 1 << 14, armData},
	}
	if len(ff.Arches) != len(want) {
		t.Fatalf("%d slices, want %d", len(ff.Arches), len(want))
	}
	for i, w := range want {
		a := ff.Arches[i]
		if a.Cpu != w.cpu || a.SubCpu != w.sub || a.Align != w.align || a.Offset != w.off || a.Size != uint32(len(w.data)) {
			t.Errorf("slice %d: %+v, want %v/%d align 2^%d at %d, %d bytes", i, a.FatArchHeader, w.cpu, w.sub, w.align, w.off, len(w.data))
		}
		if !bytes.Equal(data[a.Offset:a.Offset+a.Size], w.data) {
			t.Errorf("slice %d: the bytes differ from the thin file", i)
		}
	}
	if st, _ := os.Stat(out); st.Mode().Perm()&0o111 == 0 && os.PathSeparator == '/' {
		t.Errorf("mode %v: not executable", st.Mode())
	}
	again := filepath.Join(dir, "again")
	if err := writeFat(again, amd, arm); err != nil {
		t.Fatal(err)
	}
	if data2, _ := os.ReadFile(again); !bytes.Equal(data, data2) {
		t.Error("the same slices, given in another order, gave other bytes")
	}
}
