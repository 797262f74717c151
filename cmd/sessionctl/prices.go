package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

// Price files. import, reprice and usage take --prices FILE, a price file
// in LiteLLM's model_prices_and_context_window.json shape that overrides
// and extends the built-in table (jsonlimport.LoadPrices); without it,
// $SESSIONDB_PRICES names one; without either, the built-in table of
// jsonlimport.PricesAsOf applies.

// pricesFlagHelp is the help text of --prices.
const pricesFlagHelp = "price file in LiteLLM's model_prices_and_context_window.json shape, over the built-in prices (default $SESSIONDB_PRICES)"

// addPricesFlag adds --prices to c.
func addPricesFlag(c *cobra.Command, file *string) {
	c.Flags().StringVar(file, "prices", "", pricesFlagHelp)
}

// priceTable loads the price table of a command: --prices (flag), else
// $SESSIONDB_PRICES, else the built-in table (nil). given says whether a
// price file was named.
func (a *app) priceTable(flag string) (table *jsonlimport.PriceTable, given bool, err error) {
	file := flag
	if file == "" {
		file = a.getenv("SESSIONDB_PRICES")
	}
	if file == "" {
		return nil, false, nil
	}
	t, err := jsonlimport.LoadPrices(file)
	if err != nil {
		if flag == "" {
			return nil, false, fmt.Errorf("$SESSIONDB_PRICES: %w", err)
		}
		return nil, false, err
	}
	return t, true, nil
}
