package main

import (
	"debug/macho"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
)

// The fat (universal) Mach-O format, as <mach-o/fat.h> has it: a big-endian
// header, then one fat_arch per architecture, then each architecture's
// whole Mach-O file at its offset, aligned.
const (
	fatMagic      = 0xcafebabe
	fatHeaderSize = 8
	fatArchSize   = 20
)

// fatAlign is the log2 of the alignment of an architecture's slice, as
// lipo chooses it: the page size of the architecture, 16 KiB on arm64 and
// 4 KiB on x86-64.
func fatAlign(cpu macho.Cpu) uint32 {
	if cpu == macho.CpuArm64 {
		return 14
	}
	return 12
}

// writeFat writes to out the universal binary of the thin Mach-O files
// slices (darwin/amd64 and darwin/arm64), executable. Like lipo it orders
// the slices by alignment, then by CPU type, so the same slices give the
// same bytes.
func writeFat(out string, slices_ ...string) error {
	type arch struct {
		cpu        macho.Cpu
		sub        uint32
		data       []byte
		align, off uint32
	}
	var archs []arch
	for _, path := range slices_ {
		f, err := macho.Open(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		cpu, sub := f.Cpu, f.SubCpu
		f.Close()
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		archs = append(archs, arch{cpu: cpu, sub: sub, data: data, align: fatAlign(cpu)})
	}
	slices.SortFunc(archs, func(a, b arch) int {
		if a.align != b.align {
			return int(a.align) - int(b.align)
		}
		return int(a.cpu) - int(b.cpu)
	})
	off := uint64(fatHeaderSize + fatArchSize*len(archs))
	for i := range archs {
		a := uint64(1) << archs[i].align
		off = (off + a - 1) &^ (a - 1)
		if off+uint64(len(archs[i].data)) > 1<<32-1 {
			return fmt.Errorf("%s: too large for a fat binary", out)
		}
		archs[i].off = uint32(off)
		off += uint64(len(archs[i].data))
	}
	buf := make([]byte, off)
	be := binary.BigEndian
	be.PutUint32(buf[0:], fatMagic)
	be.PutUint32(buf[4:], uint32(len(archs)))
	for i, a := range archs {
		h := buf[fatHeaderSize+fatArchSize*i:]
		be.PutUint32(h[0:], uint32(a.cpu))
		be.PutUint32(h[4:], a.sub)
		be.PutUint32(h[8:], a.off)
		be.PutUint32(h[12:], uint32(len(a.data)))
		be.PutUint32(h[16:], a.align)
		copy(buf[a.off:], a.data)
	}
	return os.WriteFile(out, buf, 0o755)
}
