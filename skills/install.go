package skills

import (
	"fmt"
	"os"
	"path/filepath"

	"quire/kernel/protocol"
)

// Install checks the folder dir as a skill and copies its SKILL.md and the
// files it lists (nothing else, each bounded by Parse's limits, read
// through an os.Root so no symlink leads out) into the user's skills folder
// under the skill's name. The copy is made in a hidden folder and renamed
// into place, so a failed install leaves nothing a later scan reads. A skill
// of that name already in the folder is refused: the user removes it first.
// A shipped skill of that name is replaced (Entry.Replaces).
func (c *Catalog) Install(dir string) (Skill, error) {
	if c.userDir == "" {
		return Skill{}, fmt.Errorf("%w: no skills folder", ErrInstalled)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Skill{}, refuse(ErrNoSkillFile, fmt.Sprintf("Quire cannot use the folder %s (%v): give its full path.", dir, err))
	}
	root, sk, err := parseRoot(abs)
	if err != nil {
		return Skill{}, err
	}
	defer root.Close()
	dest := filepath.Join(c.userDir, sk.Name)
	if _, err := os.Lstat(dest); err == nil {
		return Skill{}, protocol.Refusal(protocol.ErrConflict, ErrInstalled, fmt.Sprintf("A skill named %s is installed already (%s): remove that folder first to replace it.", sk.Name, dest))
	}
	// Private, as everything in the data folder: the user's own.
	if err := os.MkdirAll(c.userDir, 0o700); err != nil {
		return Skill{}, fmt.Errorf("make the skills folder: %w", err)
	}
	tmp, err := os.MkdirTemp(c.userDir, ".install-")
	if err != nil {
		return Skill{}, fmt.Errorf("make a folder to copy the skill into: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; the leftovers of a failure otherwise
	for _, name := range append([]string{FileName}, sk.Files...) {
		max := int64(MaxFileSize)
		if name == FileName {
			max = MaxSkillFile
		}
		data, err := readRegular(root.FS(), name, max)
		if err != nil {
			return Skill{}, shippedFileError(name, err) // the folder changed since Parse
		}
		to := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			return Skill{}, fmt.Errorf("copy %s: %w", name, err)
		}
		if err := os.WriteFile(to, data, 0o600); err != nil {
			return Skill{}, fmt.Errorf("copy %s: %w", name, err)
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		return Skill{}, fmt.Errorf("put the skill in the skills folder: %w", err)
	}
	return sk, nil
}
