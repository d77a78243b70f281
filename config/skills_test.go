package config

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSetSkillEnabledIsSavedPublishedAndReadBack(t *testing.T) {
	dir := t.TempDir()
	load := func() Config {
		t.Helper()
		c, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	s := NewStore(load())
	var heard [][]string
	s.OnChange(func(c Config) { heard = append(heard, c.Skills.Disabled) })
	steps := []struct {
		name string
		on   bool
		want []string
	}{
		{"weekly-review", false, []string{"weekly-review"}},
		{"meeting-notes", false, []string{"meeting-notes", "weekly-review"}},
		{"weekly-review", false, []string{"meeting-notes", "weekly-review"}}, // twice off is once
		{"weekly-review", true, []string{"meeting-notes"}},
		{"not-installed", true, []string{"meeting-notes"}},
	}
	for i, st := range steps {
		if err := s.SetSkillEnabled(st.name, st.on); err != nil {
			t.Fatal(err)
		}
		if got := s.Get().Skills.Disabled; !slices.Equal(got, st.want) {
			t.Fatalf("step %d: in use %v, want %v", i, got, st.want)
		}
		if got := load().Skills.Disabled; !slices.Equal(got, st.want) {
			t.Fatalf("step %d: read back %v, want %v", i, got, st.want)
		}
		if !slices.Equal(heard[i], st.want) {
			t.Fatalf("step %d: published %v", i, heard[i])
		}
	}
}

func TestSkillSettingsAreBounded(t *testing.T) {
	many := make([]string, MaxDisabledSkills+1)
	for i := range many {
		many[i] = "s" + strings.Repeat("a", i%60) + string(rune('a'+i%26))
	}
	cases := []struct {
		name     string
		disabled []string
		says     string
	}{
		{"a name with a slash", []string{"../x"}, `"../x" is not a skill name`},
		{"an uppercase name", []string{"Weekly"}, "is not a skill name"},
		{"a too long name", []string{strings.Repeat("a", MaxSkillName+1)}, "at most 64"},
		{"too many", many, "at most 256 skills"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var fe *FieldError
			if err := (SkillSettings{Disabled: tc.disabled}).validate(); !errors.As(err, &fe) || fe.Field != "skills.disabled" || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got %v, want %q", err, tc.says)
			}
		})
	}
	t.Run("SetSkillEnabled refuses a bad name and saves nothing", func(t *testing.T) {
		dir := t.TempDir()
		c, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
		if err != nil {
			t.Fatal(err)
		}
		s := NewStore(c)
		if err := s.SetSkillEnabled("a b", false); !errors.Is(err, ErrInvalidSetting) {
			t.Fatalf("got %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, SettingsFile)); !errors.Is(err, os.ErrNotExist) || len(s.Get().Skills.Disabled) != 0 {
			t.Fatalf("a refused change was saved: %v %v", err, s.Get().Skills)
		}
	})
	t.Run("a settings file with a bad name is refused at start", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, SettingsFile), []byte(`{"skills":{"disabled":["No Such"]}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
		if !errors.Is(err, ErrInvalidSetting) || !strings.Contains(err.Error(), "skills.disabled") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("Update cannot change the list", func(t *testing.T) {
		s := NewStore(Config{DataDir: t.TempDir(), NumCtx: MinNumCtx, Profile: DefaultProfile, Theme: DefaultTheme, Model: "m", OllamaHost: "h"})
		if err := s.Update(func(c *Config) error { c.Skills.Disabled = []string{"x"}; return nil }); !errors.Is(err, ErrNotUpdated) {
			t.Fatalf("got %v", err)
		}
	})
}
