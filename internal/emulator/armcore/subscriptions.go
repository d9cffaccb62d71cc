package armcore

import (
	"net/http"
	"slices"
	"strings"

	"github.com/azkcli/azk/internal/emulator/armpath"
)

// DefaultSubscription is the subscription an emulator knows from the start
// when Config.Subscription names none: the one azk uses against it.
const DefaultSubscription = "00000000-0000-0000-0000-000000000000"

// defaultSubscription is the subscription the emulator knows without state.
func (o Config) defaultSubscription() string {
	if o.Subscription != "" {
		return o.Subscription
	}
	return DefaultSubscription
}

// Subscriptions are the subscriptions the emulator knows, sorted: the
// configured one, and every subscription something is stored in (a
// resource group, or a resource at subscription scope). A subscription is
// made by writing into it, since the emulator has no billing to create one.
func (tx Tx) Subscriptions() []string {
	c := tx.c
	seen := map[string]string{armpath.Key(c.cfg.defaultSubscription()): c.cfg.defaultSubscription()}
	for _, rec := range c.st.Resources() {
		t, ok := armpath.Parse(rec.ID)
		if !ok || t.Sub == "" {
			continue
		}
		if _, dup := seen[armpath.Key(t.Sub)]; !dup && c.live(armpath.Key(rec.ID)) != nil {
			seen[armpath.Key(t.Sub)] = t.Sub
		}
	}
	out := make([]string, 0, len(seen))
	for _, s := range seen {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out
}

// KnowsSubscription reports whether the emulator knows sub (see Subscriptions).
func (tx Tx) KnowsSubscription(sub string) bool {
	if strings.EqualFold(sub, tx.c.cfg.defaultSubscription()) {
		return true
	}
	for k := range tx.c.st.Children(armpath.Key("/subscriptions/" + sub)) {
		if tx.c.live(k) != nil {
			return true
		}
	}
	return false
}

// SubscriptionNotFound is ARM's answer for a subscription it does not know.
func SubscriptionNotFound(sub string) *Error {
	return Errorf(http.StatusNotFound, "SubscriptionNotFound", "The subscription '%s' could not be found.", sub)
}
