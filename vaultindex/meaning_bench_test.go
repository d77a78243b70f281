package vaultindex_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"quire/rag/hashvec"
	"quire/vaultindex"
)

// BenchmarkSearchWithMeaning: the generated vault's notes embedded by the
// built-in hashed embedder (what the documents use without a model; no
// model runs offline here), then ranked searches fusing words and
// meaning, with p50 and p95 of each search. Its floor, run after each op
// with the timer stopped: the same queries by words alone on an index of
// the same tables without an embedder. The first embedding is reported
// once (embed-s, passages).
func BenchmarkSearchWithMeaning(b *testing.B) {
	dir, x, reopen := indexedVault(b)
	defer x.Close()
	embedded := make(chan [2]int, 1024)
	y, err := vaultindex.Open(context.Background(), indexed.DB(), dir, vaultindex.WithMeaningFloor(0.3),
		vaultindex.WithEmbedProgress(func(done, total int) { embedded <- [2]int{done, total} }))
	if err != nil {
		b.Fatal(err)
	}
	defer y.Close()
	if err := y.Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	before, start := cpuSeconds(), time.Now()
	y.UseMeaning(hashvec.New(hashvec.Default), "")
	for r := range embedded {
		if r[0] == r[1] {
			break
		}
	}
	embedWall, embedCPU := time.Since(start).Seconds(), cpuSeconds()-before
	var passages int
	indexed.DB().QueryRow(`SELECT count(*) FROM vault_vectors`).Scan(&passages)
	words := reopen()
	defer words.Close()

	v := benchVocab()
	queries := []string{v[2900], v[2500], v[2000], v[1500], v[1000], v[500], v[100], v[10],
		v[2700] + " " + v[1200], v[800] + " " + v[2200] + " " + v[2950], "Hub 3", "Note 01234", "hub", "missing",
		"kangaroo", "budget plan for the garden"}
	if hits, _ := y.Search(context.Background(), vaultindex.Query{Text: v[2900], Limit: 10}); len(hits) == 0 {
		b.Fatal("no hit")
	}
	var times, floors []time.Duration
	for b.Loop() {
		for _, q := range queries {
			start := time.Now()
			if _, err := y.Search(context.Background(), vaultindex.Query{Text: q, Limit: 10}); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		b.StopTimer()
		for _, q := range queries {
			start := time.Now()
			if _, err := words.Search(context.Background(), vaultindex.Query{Text: q, Limit: 10}); err != nil {
				b.Fatal(err)
			}
			floors = append(floors, time.Since(start))
		}
		b.StartTimer()
	}
	slices.Sort(times)
	slices.Sort(floors)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	reportFloor(b, ms(times[len(times)/2]), ms(floors[len(floors)/2]), "p50-ms")
	reportFloor(b, ms(times[len(times)*95/100]), ms(floors[len(floors)*95/100]), "p95-ms")
	b.ReportMetric(embedWall, "embed-s")
	b.ReportMetric(embedCPU, "embed-cpu-s")
	b.ReportMetric(float64(passages), "passages")
}
