package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) reindexCommand() *cobra.Command {
	var reextract bool
	c := &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the full-text search index from the log",
		Long: `Reindex rebuilds the search index from the stored entries and summary
messages, in one transaction: run it when search reports a damaged index
(doctor names it) or after changing how text is extracted. With
--reextract, the role and text of every row are first derived again from
its body. Messages are never changed; only the index and the derived text.
It takes the write lock for as long as it runs.`,
		Example: `  sessionctl reindex
  sessionctl reindex --reextract`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			st, err := a.openExisting(nil)
			if err != nil {
				return err
			}
			if err := st.Reindex(a.ctx, reextract); err != nil {
				return fmt.Errorf("reindex %s: %w", st.Path(), err)
			}
			fmt.Fprintf(a.stdout, "rebuilt the search index of %s\n", st.Path())
			return nil
		},
	}
	c.Flags().BoolVar(&reextract, "reextract", false, "derive each row's role and text from its body again first")
	return c
}
