package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/sessiondb/sessiondb/internal/scriptmodel"
)

// serve runs the scripted model server alone until interrupted or idle,
// for trying an agent by hand: gen serve -port 18790 -log DIR.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	port := fs.Int("port", 0, "loopback port (0: a free one)")
	logDir := fs.String("log", "", "directory for requests.jsonl")
	fs.Parse(args)
	s, err := scriptmodel.Start(scriptmodel.Options{Port: *port, LogDir: *logDir})
	if err != nil {
		return err
	}
	fmt.Println(s.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	select {
	case <-sig:
	case <-s.Done():
	}
	return s.Close()
}
