package entire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sessiondb/sessiondb"
)

// ErrNoGit is returned when the git binary is not found: the branch is
// read with git's own plumbing (no Go implementation of git is linked),
// so without git nothing can be read. It wraps sessiondb.ErrInvalid.
var ErrNoGit = fmt.Errorf("the git program is needed to read Entire's checkpoint branch and was not found in PATH: %w", sessiondb.ErrInvalid)

// ErrNoBranch is returned when a repository has no checkpoint branch
// (neither entire/checkpoints/v1 nor a remote's copy of it). It wraps
// sessiondb.ErrNotFound.
var ErrNoBranch = fmt.Errorf("no %s branch (local or remote): %w", Branch, sessiondb.ErrNotFound)

// Branch is the branch Entire keeps its committed checkpoints on.
const Branch = "entire/checkpoints/v1"

// repo is a git directory read with the git binary.
type repo struct {
	gitDir string
}

// gitBin returns the path of the git program, or ErrNoGit.
func gitBin() (string, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return "", ErrNoGit
	}
	return p, nil
}

// command returns git run on the repository, with the environment that
// keeps it from reading anything but the repository: no system or user
// configuration (a user's pager, hooks or replace refs must not change
// what is read), no prompts, no lazy fetches of a partial clone.
func (r repo) command(ctx context.Context, args ...string) (*exec.Cmd, error) {
	bin, err := gitBin()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"--git-dir=" + r.gitDir, "--no-replace-objects"}, args...)...)
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
		"GIT_NO_LAZY_FETCH=1", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	return cmd, nil
}

// output runs git and returns its standard output; a failure carries
// git's own message.
func (r repo) output(ctx context.Context, args ...string) ([]byte, error) {
	cmd, err := r.command(ctx, args...)
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, msg)
	}
	return out, nil
}

// branchRef returns the ref the checkpoints are read from and the commit
// it points at: the local branch when there is one (Entire commits
// there), else origin's copy (a fresh clone has only that), else the
// first other remote's by name.
func (r repo) branchRef(ctx context.Context) (ref, commit string, err error) {
	out, err := r.output(ctx, "for-each-ref", "--format=%(objectname) %(refname)",
		"refs/heads/"+Branch, "refs/remotes/*/"+Branch)
	if err != nil {
		return "", "", err
	}
	type cand struct{ ref, commit string }
	var remotes []cand
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		oid, name, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if name == "refs/heads/"+Branch {
			return name, oid, nil
		}
		if strings.HasPrefix(name, "refs/remotes/") && strings.HasSuffix(name, "/"+Branch) {
			remotes = append(remotes, cand{name, oid})
		}
	}
	if len(remotes) == 0 {
		return "", "", ErrNoBranch
	}
	sort.Slice(remotes, func(i, j int) bool {
		oi, oj := remotes[i].ref == "refs/remotes/origin/"+Branch, remotes[j].ref == "refs/remotes/origin/"+Branch
		if oi != oj {
			return oi
		}
		return remotes[i].ref < remotes[j].ref
	})
	return remotes[0].ref, remotes[0].commit, nil
}

// treeEntry is one blob of the branch's tree.
type treeEntry struct {
	path string
	oid  string
	size int64
}

// tree lists the blobs of commit's tree (git ls-tree -r -l -z).
func (r repo) tree(ctx context.Context, commit string) ([]treeEntry, error) {
	out, err := r.output(ctx, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	return parseTree(out), nil
}

// parseTree reads git ls-tree -r -l -z output: "<mode> <type> <oid>
// <size>\t<path>" records ended by NUL; only blobs are kept.
func parseTree(out []byte) []treeEntry {
	var list []treeEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		head, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(head))
		if len(f) != 4 || f[1] != "blob" {
			continue
		}
		size, _ := strconv.ParseInt(f[3], 10, 64)
		list = append(list, treeEntry{path: string(path), oid: f[2], size: size})
	}
	return list
}

// maxMetadata bounds what is read of one metadata.json: Entire's are a
// few kilobytes; a larger blob is not a metadata file of Entire's.
const maxMetadata = 16 << 20

// blobs reads the blobs oids (git cat-file --batch) and returns them by
// oid. A blob larger than limit is left out.
func (r repo) blobs(ctx context.Context, oids []string, limit int64) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(oids) == 0 {
		return out, nil
	}
	cmd, err := r.command(ctx, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	go func() {
		w := bufio.NewWriter(in)
		for _, o := range oids {
			fmt.Fprintln(w, o)
		}
		w.Flush()
		in.Close()
	}()
	br := bufio.NewReaderSize(pipe, 64<<10)
	var readErr error
	for range oids {
		head, err := br.ReadString('\n')
		if err != nil {
			readErr = fmt.Errorf("git cat-file: %w", err)
			break
		}
		f := strings.Fields(head)
		if len(f) == 2 && f[1] == "missing" {
			continue
		}
		if len(f) != 3 {
			readErr = fmt.Errorf("git cat-file: unexpected header %q", strings.TrimSpace(head))
			break
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			readErr = fmt.Errorf("git cat-file: unexpected header %q", strings.TrimSpace(head))
			break
		}
		if size > limit || f[1] != "blob" {
			if _, err := io.CopyN(io.Discard, br, size+1); err != nil {
				readErr = fmt.Errorf("git cat-file: %w", err)
				break
			}
			continue
		}
		buf := make([]byte, size+1)
		if _, err := io.ReadFull(br, buf); err != nil {
			readErr = fmt.Errorf("git cat-file: %w", err)
			break
		}
		out[f[0]] = buf[:size]
	}
	_, _ = io.Copy(io.Discard, br)
	werr := cmd.Wait()
	if readErr != nil {
		return nil, readErr
	}
	if werr != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("git cat-file: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// blobToFile writes blob oid into the file path (git cat-file blob),
// streaming: a transcript may be far larger than memory should hold.
// With limit > 0, only its first limit bytes are written.
func (r repo) blobToFile(ctx context.Context, oid, path string, limit int64) error {
	cmd, err := r.command(ctx, "cat-file", "blob", oid)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if limit <= 0 {
		cmd.Stdout = f
		err = cmd.Run()
	} else {
		var pipe io.ReadCloser
		if pipe, err = cmd.StdoutPipe(); err == nil {
			if err = cmd.Start(); err == nil {
				_, err = io.CopyN(f, pipe, limit)
				if err == io.EOF {
					err = nil
				}
				// The rest is not wanted: git is stopped rather than
				// read to the end.
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("git cat-file blob %s: %v: %s", oid, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// trailers returns, for each checkpoint id named by an Entire-Checkpoint
// trailer of a commit on any ref but Entire's own, those commits (full
// hashes, in git log's order: newest first).
func (r repo) trailers(ctx context.Context) (map[string][]string, error) {
	out, err := r.output(ctx, "log", "--exclude=refs/heads/entire/*", "--exclude=refs/remotes/*/entire/*", "--all",
		"--format=%H%x00%(trailers:key=Entire-Checkpoint,valueonly,separator=%x00)%x01")
	if err != nil {
		// A repository with no commit at all has nothing to link.
		if strings.Contains(err.Error(), "does not have any commits") {
			return nil, nil
		}
		return nil, err
	}
	links := map[string][]string{}
	for _, rec := range bytes.Split(out, []byte{1}) {
		rec = bytes.TrimLeft(rec, "\n")
		parts := bytes.Split(rec, []byte{0})
		if len(parts) < 2 {
			continue
		}
		commit := string(parts[0])
		for _, v := range parts[1:] {
			id := strings.TrimSpace(string(v))
			if id != "" {
				links[id] = append(links[id], commit)
			}
		}
	}
	return links, nil
}

// findGitDir returns the git directory of the file Claim took: a HEAD
// file in a git directory (a repository's .git, or a bare repository),
// or a .git file of a worktree ("gitdir: <path>").
func findGitDir(path string) (string, error) {
	if filepath.Base(path) == "HEAD" {
		return filepath.Dir(path), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", errors.New("not a git directory link")
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(path), dir)
	}
	return dir, nil
}
