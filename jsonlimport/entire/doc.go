// Package entire reads the sessions that Entire (entire.io, the
// "entire" CLI) keeps in a project's git repository, on its checkpoint
// branch entire/checkpoints/v1 (issue 41).
//
// # The format, as observed
//
// No repository with the branch was reachable from here (public clones
// seen hold only their default branches); what follows is the layout that
// public readers of the branch parse and build their fixtures with
// (morinokami/entire-query: src/lib/types.ts, tests/fixtures.ts,
// src/lib/transcript/detect.ts), and a public "parser contract" for the
// branch (testdata/README.md cites them). Where they disagree (the
// contract names a Checkpoint-Id trailer and an event-stream full.jsonl
// of its own), the package follows the reader that reads real
// repositories: the trailer is Entire-Checkpoint, and full.jsonl is the
// agent's own transcript, verbatim.
//
// Entire commits, on an orphan branch entire/checkpoints/v1 (never
// checked out: Entire writes it with git's plumbing; a fresh clone has it
// only as origin/entire/checkpoints/v1), one folder per checkpoint, named
// by its 12-hex-character id split after two characters:
//
//	3a/1f00c0ffee/metadata.json          the checkpoint: checkpoint_id, strategy
//	                                     (manual-commit, auto-commit), branch,
//	                                     files_touched, sessions (paths of each
//	                                     session's files), token_usage (summed)
//	3a/1f00c0ffee/0/metadata.json        session 0: checkpoint_id, session_id (the
//	                                     agent's own), agent ("Claude Code", "Codex",
//	                                     "Gemini CLI", "OpenCode", "Cursor", …),
//	                                     model, created_at, branch, files_touched,
//	                                     token_usage (input, cache creation, cache
//	                                     read, output tokens, api_call_count,
//	                                     subagent_tokens), turn_id,
//	                                     session_metrics, initial_attribution
//	3a/1f00c0ffee/0/full.jsonl           the agent's transcript, verbatim, from its
//	                                     start: a session that goes on past a commit
//	                                     is in the next checkpoint again, longer
//	3a/1f00c0ffee/0/prompt.txt           the user's prompts; context.md, the same
//	3a/1f00c0ffee/0/content_hash.txt     formatted; a hash of the transcript
//
// A commit on a working branch that a checkpoint belongs to carries the
// trailer "Entire-Checkpoint: <id>".
//
// # What is imported
//
// A repository with the branch is a store (jsonl.StoreFormat). Claim takes
// the HEAD file of its git directory (a work tree's .git, a bare
// repository) or the .git file of a linked worktree; a directory that is
// a worktree with the branch checked out is read from its repository, and
// its shard folders are skipped (SkipDir), so that no agent reader takes a
// full.jsonl as a session of its own. git's own folders (objects, refs,
// logs, …) are skipped in every git directory an import walks.
//
// Sessions reads the branch with the git program (git for-each-ref, git
// ls-tree -r -l -z, git cat-file --batch; no Go implementation of git is
// linked): the local branch when there is one, else origin's copy, else
// another remote's. Every checkpoint session is grouped by its session_id
// (a checkpoint session without one is a session of its own,
// <checkpoint>-<n>); the one whose metadata is latest (created_at, then
// the longer transcript) holds the session's transcript as it is now.
// That transcript is written to a temporary file named after the session
// (Claude Code takes a session's id from its file's name; of a transcript
// over a MiB, its first MiB only, enough for a reader to claim it, and
// the whole when the session is parsed) and offered to
// the importer's readers in the registry's order (SetReaders); the first
// that claims it reads it, exactly as it reads the agent's own file. The
// session keeps that agent's format as its source format (so that show,
// the viewer, the MCP server, the compactor and export read it as the
// agent's), its id, title, attrs and usage (the agent's own usage lines,
// never Entire's summary); its source path is the repository's HEAD, "#"
// and the session id (jsonl.SessionPath). Entire's metadata goes into
// attrs.entire: agent, model, strategy, git branch, the union of the
// files touched, and every checkpoint of the session (id, session index,
// created_at, the commits whose Entire-Checkpoint trailer names it, its
// files touched, and Entire's token_usage as recorded).
//
// The transcripts are written under the system's temporary folder for
// the length of one import (a Follow's, until the next listing), and
// removed with the import's cache.
//
// What cannot be read is a problem naming the checkpoint's file
// (<repository>/.git/HEAD#<shard>/<rest>/…), and the rest is imported: a
// metadata.json that is no JSON object, a session folder without one, a
// session whose latest checkpoint has no full.jsonl (skipped whole rather
// than imported from an older checkpoint), a transcript no reader claims.
//
// A session's stamp is a hash of its latest transcript's blob id, of its
// checkpoints' metadata and of the commits linked to them: an import
// after new checkpoints reparses only the sessions they touch. The
// transcript is read whole each time (a resumed read gets
// jsonl.ErrNotIncremental); the importer then appends only the entries
// after those it imported, as for a file that grew, so that imports after
// each checkpoint equal one import of the final branch.
//
// # Not read
//
// A session's files other than metadata.json and full.jsonl (prompt.txt,
// context.md, content_hash.txt: the same prompts again), the checkpoint
// metadata's session list (the folders are listed from the tree), the
// temporary shadow branches entire/<hash> (uncommitted work, rewritten
// as it goes), and checkpoints v2 branches. A `git archive` of the branch
// without its repository is read file by file by the agents' readers,
// without Entire's metadata. Gemini CLI keeps a project's folder outside
// its chats (in its home's project registry), so a Gemini CLI session
// read from the branch has no cwd. Export is refused (ErrNoExport): a
// session read from the branch is exported in its agent's format.
// Without git, nothing is read (ErrNoGit).
package entire
