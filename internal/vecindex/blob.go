package vecindex

// How a vector is kept in a SQLite blob (little-endian float32s) and made
// unit length before it goes into an Index, which compares by dot product.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Encode stores a vector as little-endian float32s.
func Encode(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Decode reads a vector stored by Encode.
func Decode(b []byte) ([]float32, error) {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil, fmt.Errorf("a stored vector has %d bytes", len(b))
	}
	v := make([]float32, len(b)/4)
	return v, DecodeInto(v, b)
}

// DecodeInto reads a vector stored by Encode into dst, which must be of
// its length: a loader decodes every row into one buffer it reuses (Add
// copies), instead of a new slice per vector.
func DecodeInto(dst []float32, b []byte) error {
	if len(b) == 0 || len(b) != 4*len(dst) {
		return fmt.Errorf("a stored vector has %d bytes, not %d", len(b), 4*len(dst))
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return nil
}

// Unit checks a vector from an embedder and returns it L2-normalised
// (an Index compares by dot product, which is the cosine only for unit
// vectors).
func Unit(v []float32) ([]float32, error) {
	if len(v) == 0 {
		return nil, errors.New("the embedder returned an empty vector")
	}
	var sum float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, errors.New("the embedder returned a vector with NaN or Inf")
		}
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return nil, errors.New("the embedder returned a zero vector")
	}
	out := make([]float32, len(v))
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out, nil
}
