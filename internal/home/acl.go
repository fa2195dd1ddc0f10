package home

import (
	"fmt"
	"strings"
)

// The Windows judgment of the managed file's security descriptor, kept
// apart from the calls that read it (managed_windows.go) so every rule is
// tested on every OS: the owner must be the machine's administration, and
// no ACE that applies to the object may give anyone else a right that
// changes what the organisation set.

// aclACE is one ACE of a DACL as Windows stores it.
type aclACE struct {
	SID   string // string form, S-1-5-32-545
	Mask  uint32 // access mask: generic and specific rights, as stored
	Type  uint8  // ACE type (aceAllowed, aceDenied, ...)
	Flags uint8  // inheritance flags (aceInheritOnly, aceInherited, ...)
}

// aclView is a security descriptor's owner and DACL.
type aclView struct {
	Owner    string   // the owner's SID
	NullDACL bool     // no DACL at all: Windows grants everyone full control
	ACEs     []aclACE // in stored order
}

// aclRole is what the object is to the managed policy.
type aclRole int

const (
	roleFile     aclRole = iota // the managed file
	roleFolder                  // the directory holding it
	roleAncestor                // a directory above that
)

// ACE types and flags (winnt.h).
const (
	aceAllowed         = 0x0
	aceDenied          = 0x1
	aceAllowedObject   = 0x5
	aceDeniedObject    = 0x6
	aceAllowedCallback = 0x9
	aceDeniedCallback  = 0xA
	aceAllowedCbObject = 0xB
	aceDeniedCbObject  = 0xC

	aceInheritOnly = 0x8
	aceInherited   = 0x10
)

// Access rights (winnt.h): the standard, generic and file-specific ones.
const (
	rightWriteData       = 0x2 // a directory: add a file
	rightAppendData      = 0x4 // a directory: add a subdirectory
	rightWriteEA         = 0x10
	rightDeleteChild     = 0x40
	rightWriteAttributes = 0x100
	rightDelete          = 0x10000
	rightWriteDAC        = 0x40000
	rightWriteOwner      = 0x80000
	rightGenericAll      = 0x10000000
	rightGenericWrite    = 0x40000000
)

// Well-known SIDs.
const (
	sidSystem          = "S-1-5-18"
	sidAdministrators  = "S-1-5-32-544"
	sidTrustedInstall  = "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
	sidCreatorOwner    = "S-1-3-0"
	sidOwnerRights     = "S-1-3-4"
	sidEveryone        = "S-1-1-0"
	sidUsers           = "S-1-5-32-545"
	sidAuthenticated   = "S-1-5-11"
	sidInteractive     = "S-1-5-4"
	sidBuiltinGuests   = "S-1-5-32-546"
	sidPowerUsers      = "S-1-5-32-547"
	sidDomainUsersTail = "-513"
)

// adminSID reports whether sid is the machine's administration: SYSTEM,
// Administrators, TrustedInstaller, or a domain's Domain Admins (-512) or
// Enterprise Admins (-519).
func adminSID(sid string) bool {
	switch sid {
	case sidSystem, sidAdministrators, sidTrustedInstall:
		return true
	}
	if strings.HasPrefix(sid, "S-1-5-21-") && (strings.HasSuffix(sid, "-512") || strings.HasSuffix(sid, "-519")) {
		return true
	}
	return false
}

// sidName is a SID as a message names it.
func sidName(sid string) string {
	switch sid {
	case sidEveryone:
		return "Everyone"
	case sidUsers:
		return "Users"
	case sidAuthenticated:
		return "Authenticated Users"
	case sidInteractive:
		return "INTERACTIVE"
	case sidBuiltinGuests:
		return "Guests"
	case sidPowerUsers:
		return "Power Users"
	case sidCreatorOwner:
		return "CREATOR OWNER"
	case sidOwnerRights:
		return "OWNER RIGHTS"
	case sidSystem:
		return "SYSTEM"
	case sidAdministrators:
		return "Administrators"
	}
	if strings.HasPrefix(sid, "S-1-5-21-") && strings.HasSuffix(sid, sidDomainUsersTail) {
		return "Domain Users (" + sid + ")"
	}
	return sid
}

// dangerousRights is the part of mask that lets its holder change the
// object's content or its protection, or remove it: for the file and its
// folder every write right but the attributes' and extended attributes'
// (which change no byte of the policy); for an ancestor only what removes
// or re-protects the path below (a user may add a folder to ProgramData,
// not delete or rename Airlock's).
func dangerousRights(mask uint32, role aclRole) []string {
	var out []string
	add := func(bit uint32, name string) {
		if mask&bit != 0 {
			out = append(out, name)
		}
	}
	add(rightGenericAll, "full control (GENERIC_ALL)")
	add(rightWriteDAC, "change permissions (WRITE_DAC)")
	add(rightWriteOwner, "take ownership (WRITE_OWNER)")
	add(rightDeleteChild, "delete what is inside (FILE_DELETE_CHILD)")
	if role == roleAncestor {
		return out
	}
	add(rightGenericWrite, "write (GENERIC_WRITE)")
	add(rightDelete, "delete (DELETE)")
	if role == roleFile {
		add(rightWriteData, "write data (FILE_WRITE_DATA)")
		add(rightAppendData, "append data (FILE_APPEND_DATA)")
	} else {
		add(rightWriteData, "add files (FILE_ADD_FILE)")
		add(rightAppendData, "add folders (FILE_ADD_SUBDIRECTORY)")
	}
	return out
}

// judgeACL judges one object on the managed path: nil when only the
// administration can change it. Deny ACEs are not credited: whether a
// deny comes before an allow is the DACL's order, and a refusal that rests
// on it is one reorder from gone; the allow alone is judged. An ACE that is
// inherit-only does not apply to the object (its children are checked on
// their own). CREATOR OWNER and OWNER RIGHTS name the owner, judged
// first. An ACE type the judgment does not know refuses.
func judgeACL(path string, role aclRole, v aclView) error {
	what := map[aclRole]string{roleFile: "is the managed policy", roleFolder: "holds the managed policy", roleAncestor: "is above the managed policy"}[role]
	fixOwner := fmt.Sprintf(`as an administrator: icacls "%s" /setowner *S-1-5-32-544`, path)
	fixACL := fmt.Sprintf(`as an administrator: icacls "%s" /inheritance:r /grant:r *S-1-5-18:(OI)(CI)F *S-1-5-32-544:(OI)(CI)F *S-1-5-32-545:(OI)(CI)RX (docs/fleet.md, Windows)`, path)
	if role == roleFile {
		fixACL = fmt.Sprintf(`as an administrator: icacls "%s" /inheritance:r /grant:r *S-1-5-18:F *S-1-5-32-544:F *S-1-5-32-545:R (docs/fleet.md, Windows)`, path)
	}
	if role == roleAncestor {
		fixACL = fmt.Sprintf(`as an administrator: remove that right from "%s" (icacls "%s" /remove:g SID), or move the managed folder's parent back to Windows' defaults`, path, path)
	}
	if v.Owner == "" {
		return &UnsafeError{Path: path, Why: what + " and has no owner Airlock can read", Fix: fixOwner}
	}
	if !adminSID(v.Owner) {
		return &UnsafeError{Path: path, Why: what + " and is owned by " + sidName(v.Owner) + ", not SYSTEM or Administrators: its owner can change its permissions, then what the organisation set",
			Fix: fixOwner}
	}
	if v.NullDACL {
		return &UnsafeError{Path: path, Why: what + " and has no access list (a null DACL): Windows lets everyone change it", Fix: fixACL}
	}
	for i, a := range v.ACEs {
		switch a.Type {
		case aceDenied, aceDeniedObject, aceDeniedCallback, aceDeniedCbObject:
			continue
		case aceAllowed, aceAllowedObject, aceAllowedCallback, aceAllowedCbObject:
		default:
			return &UnsafeError{Path: path, Why: fmt.Sprintf("%s and its access list has an entry (%d) of a type Airlock does not judge (0x%x)", what, i+1, a.Type), Fix: fixACL}
		}
		if a.Flags&aceInheritOnly != 0 {
			continue
		}
		if adminSID(a.SID) || a.SID == sidCreatorOwner || a.SID == sidOwnerRights {
			continue
		}
		if rights := dangerousRights(a.Mask, role); len(rights) > 0 {
			from := ""
			if a.Flags&aceInherited != 0 {
				from = ", inherited from the folder above"
			}
			return &UnsafeError{Path: path, Why: fmt.Sprintf("%s and its access list lets %s %s%s: that principal is not the administration, and an agent running as a user is in it",
				what, sidName(a.SID), strings.Join(rights, ", "), from), Fix: fixACL}
		}
	}
	return nil
}
