package extensions

// Microsoft.SignalRService/signalR: the operator's
// signalrservice/signal_r_extension_authorization.go exports the access keys
// and connection strings (listKeys).
func init() {
	register("Microsoft.SignalRService/signalR", &keyExporter{reads: []keyRead{sameNames("listKeys", sharedAccessKeys...)}})
}
