package component

import "net/http"

// headerClient adds one header to every request, like an agent sending the
// entry's headers.
type headerClient struct{ name, value string }

func (h *headerClient) client() *http.Client {
	return &http.Client{Transport: h}
}

func (h *headerClient) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}
