package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// The machine identity (issue 43): every session an import or a watcher
// creates records the machine its source was read on (Session.Machine),
// so that one database, PostgreSQL for a team, can tell machines apart and
// list, search and sum by them.
//
// How it is chosen, first that is set:
//
//  1. --machine NAME, for one run;
//  2. $SESSIONDB_MACHINE;
//  3. the file $XDG_CONFIG_HOME/sessiondb/machine (else
//     ~/.config/sessiondb/machine), set once: its first line;
//  4. otherwise the file is created, holding the host name (lowercased,
//     its first label) and six random hex digits: "laptop-3fa9c2".
//
// Why a random suffix kept in the config dir rather than the host name or
// /etc/machine-id: host names repeat (every "MacBook-Pro", "localhost" in
// containers) and change when a machine is renamed, which would split one
// machine in two; /etc/machine-id exists only on Linux, is shared by
// cloned VM images and containers, and is not to be exposed unhashed. A
// name written once is stable across renames and reinstalls, distinct
// when host names collide, readable in a listing, and the user may edit
// it to any name. The one case it gets wrong is a config dir copied to
// another machine: give that machine its own name in the file (or
// $SESSIONDB_MACHINE).

// machineFileName is the file under the config dir that holds the name.
const machineFileName = "machine"

// maxMachineLen bounds a machine name.
const maxMachineLen = 64

// checkMachine validates a machine name: 1 to 64 printable characters, no
// spaces (it is shown in tables and given on command lines).
func checkMachine(name string) error {
	if name == "" || len(name) > maxMachineLen {
		return fmt.Errorf("machine name %q: must be 1 to %d characters", name, maxMachineLen)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return fmt.Errorf("machine name %q: only printable characters without spaces", name)
		}
	}
	return nil
}

// configDir is sessiondb's config directory: $XDG_CONFIG_HOME/sessiondb
// (an absolute XDG_CONFIG_HOME only), else ~/.config/sessiondb; "" when no
// home is known.
func (a *app) configDir() string {
	if d := a.getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "sessiondb")
	}
	home := a.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "sessiondb")
}

// machineID returns this run's machine identity (see above), creating the
// config file the first time. Importers record it on the sessions they
// create.
func (a *app) machineID() (string, error) {
	if a.machineFlag != "" {
		return a.machineFlag, checkMachine(a.machineFlag)
	}
	if m := strings.TrimSpace(a.getenv("SESSIONDB_MACHINE")); m != "" {
		return m, checkMachine(m)
	}
	dir := a.configDir()
	if dir == "" {
		return "", errors.New("no machine identity: no home directory; pass --machine NAME or set SESSIONDB_MACHINE")
	}
	path := filepath.Join(dir, machineFileName)
	if data, err := os.ReadFile(path); err == nil {
		m := strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0])
		if err := checkMachine(m); err != nil {
			return "", fmt.Errorf("%s: %w (edit the file or pass --machine)", path, err)
		}
		return m, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read machine identity: %w", err)
	}
	m := newMachineName()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("keep machine identity: %w", err)
	}
	// Written aside, then linked into place: link fails when the name
	// exists, so two first runs at once keep one name, the first linked,
	// and no run ever reads the file before its line is in it.
	tmp, err := os.CreateTemp(dir, ".machine-*")
	if err != nil {
		return "", fmt.Errorf("keep machine identity: %w", err)
	}
	_, werr := fmt.Fprintln(tmp, m)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Link(tmp.Name(), path)
	}
	_ = os.Remove(tmp.Name())
	if errors.Is(werr, os.ErrExist) {
		return a.machineID()
	}
	if werr != nil {
		return "", fmt.Errorf("keep machine identity: %w", werr)
	}
	return m, nil
}

// newMachineName is the host name's first label, lowercased and kept to
// letters, digits and '-', then '-' and six random hex digits.
func newMachineName() string {
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(strings.ToLower(host), ".")
	var b strings.Builder
	for _, r := range host {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' {
			b.WriteRune(r)
		}
	}
	label := b.String()
	if len(label) > 40 {
		label = label[:40]
	}
	if label == "" {
		label = "machine"
	}
	var rnd [3]byte
	_, _ = rand.Read(rnd[:])
	return label + "-" + hex.EncodeToString(rnd[:])
}
