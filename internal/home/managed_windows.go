//go:build windows

package home

import "golang.org/x/sys/windows"

// programData is the system's ProgramData folder, asked of Windows (the
// known folder, from the machine's registry), never read from the
// ProgramData variable, which a user sets for the processes it starts.
func programData() string {
	if dir, err := windows.KnownFolderPath(windows.FOLDERID_ProgramData, 0); err == nil && dir != "" {
		return dir
	}
	return `C:\ProgramData` // Windows' default
}
