package main

import (
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) completionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "completion (bash|zsh|fish)",
		Short: "Print a shell completion script",
		Long: `Completion prints a completion script for the given shell on stdout.

  bash:  source <(sessionctl completion bash)
  zsh:   sessionctl completion zsh > "${fpath[1]}/_sessionctl"
  fish:  sessionctl completion fish > ~/.config/fish/completions/sessionctl.fish`,
		Example:   `  sessionctl completion bash > /etc/bash_completion.d/sessionctl`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(a.stdout, true)
			case "zsh":
				return root.GenZshCompletion(a.stdout)
			case "fish":
				return root.GenFishCompletion(a.stdout, true)
			}
			return usageErrorf(c, "unknown shell %q: use bash, zsh or fish", args[0])
		},
	}
}

// completeSessions completes session IDs (for the first argument only, or
// for every argument when all is true) from an existing database. It never
// creates a database and stays silent on errors: a completion must not
// print anything but candidates.
func (a *app) completeSessions(all bool) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 && !all {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		st, err := a.openRead(nil)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		infos, err := listSessions(c.Context(), st, "", 1000)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, si := range infos {
			if strings.HasPrefix(si.ID, toComplete) {
				out = append(out, cobra.CompletionWithDesc(si.ID, si.Title))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
