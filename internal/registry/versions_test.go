package registry

import "testing"

func TestNewestAndNearestVersionByDate(t *testing.T) {
	// Sorted as strings, v1api... comes before v2... and before v1beta...:
	// only the dates order them.
	served := []string{"v1api20200601", "v1api20210101preview", "v20220301", "v1api20230101", "v20240101preview"}
	if got := Newest(served); got != "v1api20230101" {
		t.Errorf("Newest = %s, want the newest stable v1api20230101", got)
	}
	if got := Newest([]string{"v1api20210101preview", "v20240101preview"}); got != "v20240101preview" {
		t.Errorf("Newest of previews = %s", got)
	}
	for want, nearest := range map[string]string{
		"v1api20201101":        "v1api20210101preview", // two months after, against five before
		"v20220101":            "v20220301",
		"v1api20221201preview": "v1api20230101",
		"v20260101":            "v20240101preview",
		"v1":                   "v1api20230101", // no date: the newest
	} {
		if got := NearestVersion(want, served); got != nearest {
			t.Errorf("NearestVersion(%s) = %s, want %s", want, got, nearest)
		}
	}
}

func TestEveryKindHasANewestVersion(t *testing.T) {
	r := Default()
	for _, gvk := range r.All() {
		versions := r.Versions(gvk.Group, gvk.Kind)
		newest := Newest(versions)
		if newest == "" {
			t.Errorf("%s/%s: no newest of %v", gvk.Group, gvk.Kind, versions)
		}
	}
}
