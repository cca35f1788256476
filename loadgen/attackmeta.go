package loadgen

import "net/url"

// Filters returns the list filters the harvester sends as a URL query
// (contextId=c&status=s, keys sorted), "" for none. Attack names carry it
// so that a merge can tell runs with different filters apart.
func (h *Harvester) Filters() string {
	v := url.Values{}
	if h.list.ContextID != nil {
		v.Set("contextId", *h.list.ContextID)
	}
	if h.list.Status != nil {
		v.Set("status", *h.list.Status)
	}
	return v.Encode()
}

// WithStoreSize records, in every attack name, that the list walked holds
// n tasks (pagewalk load --sizes knows it: it seeded them). 0: unknown.
func WithStoreSize(n int) Option { return func(x *Runner) { x.store = n } }

// storeSize is the list size attack names record: the size set by
// WithStoreSize, else the totalSize page 1 of the current walk reported,
// else 0 (unknown).
func (r *Runner) storeSize() int {
	if r.store > 0 {
		return r.store
	}
	if hv := r.h.cur; hv != nil && hv.TotalSize != nil && *hv.TotalSize > 0 {
		return *hv.TotalSize
	}
	return 0
}
