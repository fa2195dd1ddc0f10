//go:build windows

package home

import (
	"io/fs"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// checkManaged on Windows reads the security descriptor of the managed
// file, of its folder and of every folder above, and judges each
// (judgeACL): owned by SYSTEM or Administrators, and no ACE that applies
// to it gives another principal a right that changes the policy. What
// cannot be read refuses: the gate fails closed, as on unix.
func checkManaged(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 || fi.Mode()&fs.ModeIrregular != 0 {
		return &UnsafeError{Path: path, Why: "is the managed policy and is a link or reparse point: Airlock does not follow one there",
			Fix: "replace it with the policy file (as an administrator)"}
	}
	if !fi.Mode().IsRegular() {
		return &UnsafeError{Path: path, Why: "is the managed policy and is not a regular file", Fix: "replace it with the policy file (as an administrator)"}
	}
	for p, role := path, roleFile; ; {
		v, err := readACL(p)
		if err != nil {
			return &UnsafeError{Path: p, Why: "is on the managed policy's path and its permissions cannot be read: " + err.Error(),
				Fix: "check the file's owner and permissions (as an administrator: icacls \"" + p + "\")"}
		}
		if err := judgeACL(p, role, v); err != nil {
			return err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
		if role == roleFile {
			role = roleFolder
		} else {
			role = roleAncestor
		}
	}
}

// readACL reads the owner and DACL of the file or directory at p.
func readACL(p string) (aclView, error) {
	sd, err := windows.GetNamedSecurityInfo(p, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return aclView{}, err
	}
	var v aclView
	owner, _, err := sd.Owner()
	if err != nil {
		return aclView{}, err
	}
	if owner != nil {
		v.Owner = owner.String()
	}
	dacl, _, err := sd.DACL()
	switch {
	case err == windows.ERROR_OBJECT_NOT_FOUND:
		v.NullDACL = true // no DACL: everyone has full control
		return v, nil
	case err != nil:
		return aclView{}, err
	case dacl == nil:
		v.NullDACL = true
		return v, nil
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return aclView{}, err
		}
		a := aclACE{Mask: uint32(ace.Mask), Type: ace.Header.AceType, Flags: ace.Header.AceFlags}
		switch a.Type {
		case aceAllowed, aceDenied, aceAllowedCallback, aceDeniedCallback:
			// the SID follows the mask
			a.SID = (*windows.SID)(unsafe.Pointer(&ace.SidStart)).String()
		default:
			// object ACEs put GUIDs before the SID: judgeACL refuses the
			// allowed ones by SID only if known, so name none and let it
			// judge the type and mask
			a.SID = ""
		}
		v.ACEs = append(v.ACEs, a)
	}
	return v, nil
}
