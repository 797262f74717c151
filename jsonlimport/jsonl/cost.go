package jsonl

import "github.com/sessiondb/sessiondb"

// An Estimator marks the usage rows a reader produced for a tool that
// records no cost as estimated, and estimates them from a price table.
// jsonlimport, which holds the prices, sets it (SetEstimator).
type Estimator func(rows []sessiondb.Usage)

var estimator Estimator

// SetEstimator sets what EstimateCosts does; the importer package calls it
// once, at init.
func SetEstimator(e Estimator) { estimator = e }

// EstimateCosts marks and estimates the cost of rows (a reader of a tool
// that records no cost calls it, so that its Parsed is complete on its
// own); without an Estimator it does nothing.
func EstimateCosts(rows []sessiondb.Usage) {
	if estimator != nil {
		estimator(rows)
	}
}
