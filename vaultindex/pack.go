package vaultindex

import (
	"encoding/binary"
	"errors"

	"quire/vault"
)

// A note's links are also kept packed in vault_notes.links, so a start
// loads the graph from 20,000 rows rather than 200,000 (vault_links stays
// the table to query). The form is private to this package: per link a
// flags byte (1 wiki, 2 embed), Start, End and Line as uvarints, then
// Target, Sub, Text and Property, each a uvarint length and its bytes.

var errPacked = errors.New("unreadable packed links")

func packLinks(ls []vault.Link) []byte {
	if len(ls) == 0 {
		return nil
	}
	b := make([]byte, 0, len(ls)*32)
	for _, l := range ls {
		var f byte
		if l.Wiki {
			f |= 1
		}
		if l.Embed {
			f |= 2
		}
		b = append(b, f)
		b = binary.AppendUvarint(b, uint64(l.Start))
		b = binary.AppendUvarint(b, uint64(l.End))
		b = binary.AppendUvarint(b, uint64(l.Line))
		for _, s := range []string{l.Target, l.Sub, l.Text, l.Property} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	return b
}

func unpackLinks(b []byte) ([]vault.Link, error) {
	var out []vault.Link
	num := func() (int, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return int(v), true
	}
	str := func() (string, bool) {
		n, ok := num()
		if !ok || n > len(b) {
			return "", false
		}
		s := string(b[:n])
		b = b[n:]
		return s, true
	}
	for len(b) > 0 {
		var l vault.Link
		f := b[0]
		b = b[1:]
		l.Wiki, l.Embed = f&1 != 0, f&2 != 0
		var ok1, ok2, ok3, ok4, ok5, ok6, ok7 bool
		l.Start, ok1 = num()
		l.End, ok2 = num()
		l.Line, ok3 = num()
		l.Target, ok4 = str()
		l.Sub, ok5 = str()
		l.Text, ok6 = str()
		l.Property, ok7 = str()
		if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
			return nil, errPacked
		}
		out = append(out, l)
	}
	return out, nil
}
