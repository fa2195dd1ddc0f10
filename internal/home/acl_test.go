package home

import (
	"errors"
	"strings"
	"testing"
)

// TestJudgeACL: the Windows judgment of the managed file, its folder and
// the folders above, over descriptors as GetNamedSecurityInfo returns
// them. The benign rows are Windows' own defaults (a file an administrator
// wrote under a folder with inheritance removed, as docs/fleet.md sets it
// up; ProgramData's and C:\'s default ACLs, as `icacls` prints them on
// Windows 10/11) and their near neighbours.
func TestJudgeACL(t *testing.T) {
	const (
		me          = "S-1-5-21-1004336348-1177238915-682003330-1001" // the signed-in user
		domainAdmin = "S-1-5-21-1004336348-1177238915-682003330-512"
		domainUsers = "S-1-5-21-1004336348-1177238915-682003330-513"
		full        = 0x1F01FF // FILE_ALL_ACCESS
		modify      = 0x1301BF // icacls (M)
		readExec    = 0x1200A9 // icacls (RX)
		read        = 0x120089 // icacls (R)
		write       = 0x100116 // icacls (W): WD, AD, WEA, WA, SYNCHRONIZE
		genRead     = 0x80000000
		genExec     = 0x20000000
		oici        = 0x3 // OBJECT_INHERIT | CONTAINER_INHERIT
	)
	allow := func(sid string, mask uint32) aclACE { return aclACE{SID: sid, Mask: mask, Type: aceAllowed} }
	inherited := func(a aclACE) aclACE { a.Flags |= aceInherited; return a }
	inhOnly := func(a aclACE) aclACE { a.Flags |= aceInheritOnly | oici; return a }
	deny := func(sid string, mask uint32) aclACE { return aclACE{SID: sid, Mask: mask, Type: aceDenied} }
	sound := []aclACE{allow(sidSystem, full), allow(sidAdministrators, full), allow(sidUsers, read)}
	with := func(extra ...aclACE) []aclACE { return append(append([]aclACE{}, sound...), extra...) }

	cases := []struct {
		name string
		role aclRole
		v    aclView
		want string // "" accepted; else a piece of the refusal
	}{
		// accepted
		{"file: SYSTEM, Administrators full, Users read", roleFile, aclView{Owner: sidAdministrators, ACEs: sound}, ""},
		{"file owned by SYSTEM (Intune writes as SYSTEM)", roleFile, aclView{Owner: sidSystem, ACEs: sound}, ""},
		{"file owned by TrustedInstaller", roleFile, aclView{Owner: sidTrustedInstall, ACEs: sound}, ""},
		{"file owned by Domain Admins", roleFile, aclView{Owner: domainAdmin, ACEs: with(allow(domainAdmin, full))}, ""},
		{"file: Users read and execute", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(sidUsers, readExec))}, ""},
		{"file: Everyone generic read", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(sidEveryone, genRead|genExec))}, ""},
		{"file: the user may set attributes only", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(me, rightWriteAttributes|rightWriteEA))}, ""},
		{"file: inherit-only write to Users does not apply to it", roleFile, aclView{Owner: sidSystem, ACEs: with(inhOnly(allow(sidUsers, modify)))}, ""},
		{"file: CREATOR OWNER full (the owner is the administration)", roleFile, aclView{Owner: sidAdministrators, ACEs: with(allow(sidCreatorOwner, full))}, ""},
		{"file: OWNER RIGHTS full", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(sidOwnerRights, full))}, ""},
		{"file: an empty DACL (nobody but the owner)", roleFile, aclView{Owner: sidSystem}, ""},
		{"file: a deny to Everyone is fine", roleFile, aclView{Owner: sidSystem, ACEs: with(deny(sidEveryone, full))}, ""},
		{"folder: inheritance removed, Users RX", roleFolder, aclView{Owner: sidSystem, ACEs: with(allow(sidUsers, readExec))}, ""},
		{"folder: CREATOR OWNER inherit-only full (ProgramData's)", roleFolder, aclView{Owner: sidSystem, ACEs: with(inhOnly(allow(sidCreatorOwner, full)))}, ""},
		{"ProgramData: Users may add files and folders", roleAncestor, aclView{Owner: sidSystem, ACEs: with(allow(sidUsers, write), inhOnly(allow(sidCreatorOwner, full)))}, ""},
		{"C:\\: Authenticated Users add folders, modify inherit-only", roleAncestor, aclView{Owner: sidTrustedInstall, ACEs: with(allow(sidAuthenticated, rightAppendData), inhOnly(allow(sidAuthenticated, modify)))}, ""},
		{"ancestor: Users generic write (no delete of what is inside)", roleAncestor, aclView{Owner: sidSystem, ACEs: with(allow(sidUsers, rightGenericWrite))}, ""},

		// refused
		{"file owned by the user", roleFile, aclView{Owner: me, ACEs: sound}, "is owned by " + me},
		{"file owned by Users", roleFile, aclView{Owner: sidUsers, ACEs: sound}, "owned by Users"},
		{"file with no owner", roleFile, aclView{ACEs: sound}, "no owner"},
		{"file: null DACL is everyone full control", roleFile, aclView{Owner: sidSystem, NullDACL: true}, "null DACL"},
		{"file: Users modify", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(sidUsers, modify))}, "lets Users"},
		{"file: Authenticated Users write", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(sidAuthenticated, write))}, "lets Authenticated Users"},
		{"file: Everyone full control", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(sidEveryone, full))}, "lets Everyone"},
		{"file: the user generic all", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(me, rightGenericAll))}, "GENERIC_ALL"},
		{"file: the user generic write", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(me, rightGenericWrite))}, "GENERIC_WRITE"},
		{"file: Users WRITE_DAC alone", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(sidUsers, rightWriteDAC|read))}, "WRITE_DAC"},
		{"file: Users WRITE_OWNER alone", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(sidUsers, rightWriteOwner))}, "WRITE_OWNER"},
		{"file: the user DELETE (delete, then write a new one)", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(me, rightDelete))}, "DELETE"},
		{"file: the user append data", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(me, rightAppendData))}, "FILE_APPEND_DATA"},
		{"file: inherited Users modify (ProgramData's default left in place)", roleFile, aclView{Owner: sidSystem, ACEs: with(inherited(allow(sidUsers, modify)))}, "inherited from the folder above"},
		{"file: a deny before the allow is not credited", roleFile, aclView{Owner: sidSystem, ACEs: append([]aclACE{deny(sidUsers, full)}, with(allow(sidUsers, modify))...)}, "lets Users"},
		{"file: a callback (conditional) allow", roleFile, aclView{Owner: sidSystem, ACEs: with(aclACE{SID: sidInteractive, Mask: modify, Type: aceAllowedCallback})}, "lets INTERACTIVE"},
		{"file: an object allow with an unread SID", roleFile, aclView{Owner: sidSystem, ACEs: with(aclACE{Mask: full, Type: aceAllowedObject})}, "lets"},
		{"file: an ACE type the judgment does not know", roleFile, aclView{Owner: sidSystem, ACEs: with(aclACE{SID: sidUsers, Mask: read, Type: 0x13})}, "does not judge"},
		{"file: Domain Users write", roleFile, aclView{Owner: sidSystem, ACEs: with(allow(domainUsers, write))}, "Domain Users"},
		{"folder: ProgramData's inherited Users add files (CI)", roleFolder, aclView{Owner: sidSystem, ACEs: with(inherited(allow(sidUsers, write)))}, "add files (FILE_ADD_FILE)"},
		{"folder: Users delete child", roleFolder, aclView{Owner: sidSystem, ACEs: with(allow(sidUsers, rightDeleteChild|readExec))}, "FILE_DELETE_CHILD"},
		{"folder: owned by the user (made before the administrator)", roleFolder, aclView{Owner: me, ACEs: sound}, "holds the managed policy and is owned by"},
		{"ancestor: Users delete child", roleAncestor, aclView{Owner: sidSystem, ACEs: with(allow(sidUsers, rightDeleteChild))}, "FILE_DELETE_CHILD"},
		{"ancestor: Everyone full control", roleAncestor, aclView{Owner: sidSystem, ACEs: with(allow(sidEveryone, full))}, "lets Everyone"},
		{"ancestor: owned by the user", roleAncestor, aclView{Owner: me, ACEs: sound}, "is above the managed policy and is owned by"},
		{"ancestor: null DACL", roleAncestor, aclView{Owner: sidSystem, NullDACL: true}, "null DACL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := `C:\ProgramData\Airlock\managed.yaml`
			err := judgeACL(path, tc.role, tc.v)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want a refusal saying %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("refusal %q does not say %q", err, tc.want)
			}
			// fail closed like the unix check: an UnsafeError naming the file and the fix
			var ue *UnsafeError
			if !errors.As(err, &ue) || !errors.Is(err, ErrUnsafe) || ue.Path != path || !strings.Contains(ue.Fix, "icacls") && !strings.Contains(ue.Fix, "administrator") {
				t.Fatalf("refusal is not an UnsafeError naming %s and its fix: %#v", path, err)
			}
		})
	}
}
