package emulator

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The ARM APIs and answers of issue 40 items 3 and 4, each over real HTTP.

// TestGenericPathWithEmptyParentPath: `az resource show|create|update|delete
// -g G -n N --resource-type NS/type` sends providers/NS//type/N (an empty
// parent path), which ARM serves as providers/NS/type/N.
func TestGenericPathWithEmptyParentPath(t *testing.T) {
	c := startWithGroup(t, Options{})
	const canonical = rgID + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	const cliForm = rgID + "/providers/Microsoft.Network//virtualNetworks/vnet1"
	body := map[string]any{"location": "westus2", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}}
	created := c.mustPut(cliForm, body)
	if created["id"] != canonical {
		t.Errorf("created through the CLI's form, the ID is %v, want %s", created["id"], canonical)
	}
	for _, path := range []string{canonical, cliForm} {
		resp, got := c.do(http.MethodGet, path+api, nil)
		mustStatus(t, resp, got, http.StatusOK)
		if got["id"] != canonical {
			t.Errorf("GET %s: id %v", path, got["id"])
		}
	}
	// az resource tag and update send a PATCH (or a PUT) on the same form.
	resp, patched := c.do(http.MethodPatch, cliForm+api, map[string]any{"tags": map[string]any{"env": "test"}})
	mustStatus(t, resp, patched, http.StatusOK)
	resp, got := c.do(http.MethodGet, canonical+api, nil)
	mustStatus(t, resp, got, http.StatusOK)
	if tags, _ := got["tags"].(map[string]any); tags["env"] != "test" {
		t.Errorf("the PATCH through the CLI's form did not tag the resource: %v", got["tags"])
	}
	// A child type under the empty parent path is no top-level type: refused as ARM refuses an unknown path.
	resp, got = c.do(http.MethodGet, rgID+"/providers/Microsoft.Network//virtualNetworks//subnets/s1"+api, nil)
	mustStatus(t, resp, got, http.StatusNotFound)
	resp = c.send(http.MethodDelete, cliForm+api, nil)
	if _, err := c.pollUntilDone(resp); err != nil {
		t.Fatalf("DELETE through the CLI's form: %v", err)
	}
	resp, got = c.do(http.MethodGet, canonical+api, nil)
	mustStatus(t, resp, got, http.StatusNotFound)
}

// TestSlowBodyIsCutOff: a client that sends its headers at once and then
// trickles its body is cut off at the read deadline, as one trickling its
// headers is; a body that arrives in time is served.
func TestSlowBodyIsCutOff(t *testing.T) {
	const deadline = 400 * time.Millisecond
	run, err := Start(context.Background(), Options{ReadTimeout: deadline}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	host := strings.TrimPrefix(run.URL, "http://")
	body := `{"location":"westus2"}`
	send := func(pause time.Duration) (status string, took time.Duration) {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		began := time.Now()
		fmt.Fprintf(conn, "PUT %s%s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", rgID, rgAPI, host, len(body))
		for i := range len(body) {
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				break // cut off
			}
			time.Sleep(pause)
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, _ := bufio.NewReader(conn).ReadString('\n')
		return strings.TrimSpace(line), time.Since(began)
	}
	if status, _ := send(0); !strings.Contains(status, " 201 ") && !strings.Contains(status, " 200 ") {
		t.Fatalf("a body sent at once: %q, want it served", status)
	}
	// 22 bytes, 100 ms apart: 2.2 s, far past the deadline.
	status, took := send(100 * time.Millisecond)
	if !strings.Contains(status, " 408 ") {
		t.Errorf("a trickled body: %q, want 408", status)
	}
	if took > deadline+1500*time.Millisecond {
		t.Errorf("a trickled body held its connection %v; the deadline is %v", took, deadline)
	}
}
