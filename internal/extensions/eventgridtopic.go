package extensions

// Microsoft.EventGrid/topics: the operator's eventgrid/topic_extension.go
// exports the shared access keys (listKeys).
func init() {
	register("Microsoft.EventGrid/topics", &keyExporter{reads: []keyRead{sameNames("listKeys", "key1", "key2")}})
}
