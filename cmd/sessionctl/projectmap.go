package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

// Project paths across machines: --map FROM=TO (repeatable) and the lines
// of the map file in the config dir (~/.config/sessiondb/map, one FROM=TO
// a line, # for comments) rewrite the project a session records when
// import and watch (and serve --watch) write it, by the longest matching
// prefix, so that /home/a/src/x on one machine and /Users/a/src/x on
// another are one project. list --project reads its filter the same way.
// Only the recorded project changes: never a transcript, nor the cwd the
// agent wrote in it (jsonlimport.PathMap). The flags come before the
// file's lines, so a flag wins over a line of the same FROM.

// mapFileName is the file under the config dir that holds the map.
const mapFileName = "map"

// pathMaps returns the --map values and the map file's lines, parsed.
func (a *app) pathMaps() ([]jsonlimport.PathMap, error) {
	var out []jsonlimport.PathMap
	for _, s := range a.mapFlags {
		m, err := jsonlimport.ParsePathMap(s)
		if err != nil {
			return nil, fmt.Errorf("--map: %w", err)
		}
		out = append(out, m)
	}
	dir := a.configDir()
	if dir == "" {
		return out, nil
	}
	path := filepath.Join(dir, mapFileName)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read path map: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m, err := jsonlimport.ParsePathMap(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read path map: %w", err)
	}
	return out, nil
}
