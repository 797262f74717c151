package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) reindexCommand() *cobra.Command {
	var reextract, catchUp bool
	c := &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the full-text search index from the log",
		Long: `Reindex rebuilds the search index from the stored entries and summary
messages, in one transaction: run it when search reports a damaged index
(doctor names it) or after changing how text is extracted. With
--reextract, the role and text of every row are first derived again from
its body. Messages are never changed; only the index and the derived text.
It takes the write lock for as long as it runs.

Writers index new messages in the background, in batches, and search scans
what is not indexed yet, so search never misses a message. With --catch-up,
reindex only indexes what is pending (after a bulk import, say) instead of
rebuilding. Both print the index's lag before and after.`,
		Example: `  sessionctl reindex
  sessionctl reindex --catch-up
  sessionctl reindex --reextract`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			st, err := a.openExisting(nil)
			if err != nil {
				return err
			}
			li, lazy := st.(lazyIndexer)
			if lazy {
				before, err := li.IndexStatus(a.ctx)
				if err != nil {
					return fmt.Errorf("reindex %s: %w", location(st), err)
				}
				fmt.Fprintf(a.stdout, "before: %d rows not indexed, %d deleted rows not purged\n", before.Unindexed, before.PendingDeletes)
			}
			what := "rebuilt"
			switch {
			case catchUp && !reextract && lazy:
				what = "caught up"
				err = li.CatchUpIndex(a.ctx)
			case catchUp && !reextract:
				fmt.Fprintln(a.stdout, note(st, "index"))
				return nil
			default:
				ri, ok := st.(reindexer)
				if !ok {
					fmt.Fprintln(a.stdout, note(st, "index"))
					return nil
				}
				err = ri.Reindex(a.ctx, reextract)
			}
			if err != nil {
				return fmt.Errorf("reindex %s: %w", location(st), err)
			}
			if !lazy {
				fmt.Fprintf(a.stdout, "%s the search index of %s\n", what, location(st))
				return nil
			}
			after, err := li.IndexStatus(a.ctx)
			if err != nil {
				return fmt.Errorf("reindex %s: %w", location(st), err)
			}
			fmt.Fprintf(a.stdout, "%s the search index of %s; after: %d rows not indexed, %d deleted rows not purged\n",
				what, location(st), after.Unindexed, after.PendingDeletes)
			return nil
		},
	}
	c.Flags().BoolVar(&reextract, "reextract", false, "derive each row's role and text from its body again first")
	c.Flags().BoolVar(&catchUp, "catch-up", false, "index only what is pending instead of rebuilding")
	return c
}
