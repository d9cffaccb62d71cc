package extensions

import (
	"slices"
	"strings"
)

// Microsoft.DataProtection/backupVaults/backupInstances: the operator's
// dataprotection/backup_vaults_backup_instance_extensions.go holds a backup
// instance not done until its protection status settles. azk waits for it,
// and fails one Azure reports in ProtectionError; there the operator, for a
// user error, also asks Azure to sync the instance (POST
// syncBackupInstance), a write azk leaves to the user.
type backupInstance struct{}

func init() { register("Microsoft.DataProtection/backupVaults/backupInstances", backupInstance{}) }

// protectionSettled are the protection states the operator takes as done.
var protectionSettled = []string{
	"configuringprotectionfailed", "invalid", "notprotected", "protectionconfigured", "softdeleted",
	"protectionstopped", "backupschedulessuspended", "retentionschedulessuspended",
}

func (backupInstance) CheckAfterWrite(current map[string]any) Verdict {
	props, _ := current["properties"].(map[string]any)
	protection, _ := props["protectionStatus"].(map[string]any)
	status, _ := protection["status"].(string)
	switch l := strings.ToLower(status); {
	case status == "" || slices.Contains(protectionSettled, l):
		return Verdict{}
	case l == "protectionerror":
		details, _ := protection["errorDetails"].(map[string]any)
		code, _ := details["code"].(string)
		message, _ := details["message"].(string)
		return Verdict{Fail: "protection error " + code + ": " + message}
	}
	return Verdict{Wait: "protection status " + status}
}
