package shell

import "strings"

// PowerShell's certificate cmdlets (MITRE ATT&CK T1553.004): Import-Certificate
// and Import-PfxCertificate into a Root, AuthRoot or CA store of the machine or
// the user are certutil -addstore under another name, and are read as that
// (trust.go's certutilTrust judges it). An import into My (a personal
// certificate) or TrustedPeople trusts no issuer and stays what it is.
// https://learn.microsoft.com/powershell/module/pki/import-certificate

var psCertVals = []string{"filepath", "certstorelocation", "password", "exportable", "confirm"}

// psImportCert returns the Bash reading of an import of file into store
// (Cert:\LocalMachine\Root …), or "" when the store trusts no issuer.
func psImportCert(file, store string) string {
	s := strings.ToLower(strings.Trim(store, `'"`))
	s = strings.TrimRight(strings.ReplaceAll(s, "/", `\`), `\`)
	if i := strings.LastIndexByte(s, '\\'); i >= 0 {
		s = s[i+1:]
	}
	switch s {
	case "root", "authroot", "ca", "trustedpublisher":
	default:
		return ""
	}
	if file == "" {
		file = "cert"
	}
	return "certutil -addstore " + s + " " + file
}
