package audit

import (
	"errors"
	"io/fs"
	"syscall"
)

// Written reports whether an Append error still leaves the record in the
// log: written but not checkpointed (ErrCheckpoint), or not anchored
// (ErrAnchor), is recorded. Every front end that refuses a call it cannot
// record (the hook and proxy through gate/, the egress proxy, airlock run)
// asks this.
func Written(err error) bool {
	return err == nil || errors.Is(err, ErrCheckpoint) || errors.Is(err, ErrAnchor)
}

// Unwritable says why a record could not be written to the log in home and
// how to fix it, for a person: the cause first (disk full, permission,
// read-only file system), then the error with the file it names, then the
// fix.
func Unwritable(err error, home string) string {
	cause, fix := "", ""
	switch {
	case errors.Is(err, syscall.ENOSPC):
		cause, fix = "the disk is full (ENOSPC)", "free space on the file system holding "+home
	case errors.Is(err, syscall.EDQUOT):
		cause, fix = "the disk quota is used up (EDQUOT)", "free space in your quota on the file system holding "+home
	case errors.Is(err, syscall.EROFS):
		cause, fix = "the file system is read-only (EROFS)", "remount it read-write, or point AIRLOCK_HOME at a writable directory"
	case errors.Is(err, fs.ErrPermission):
		cause, fix = "permission denied (EACCES)", "make "+home+" and the files in it yours and writable by you (chown, chmod u+rw)"
	default:
		cause, fix = "it could not be written", "see the error, and run airlock doctor"
	}
	return "the audit log in " + home + " cannot be written: " + cause + ": " + err.Error() + "; fix: " + fix
}
