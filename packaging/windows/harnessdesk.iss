; Inno Setup 6 script for HarnessDesk on Windows (x64). Build on Windows, after the bundle:
;   py packaging\build.py
;   "%ProgramFiles(x86)%\Inno Setup 6\ISCC.exe" /DAppVersion=0.1.0 packaging\windows\harnessdesk.iss
; Output: dist\HarnessDesk-<version>-setup.exe. Paths below are relative to this file.
; The bundle holds harnessdesk.exe (windowed) and harnessdesk-cli.exe (console: doctor,
; serve, prompt; see packaging/harnessdesk.spec). The window uses Edge WebView2, which
; Windows 10/11 ship; the installer does not bundle it.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "HarnessDesk"
#define BundleDir "..\..\dist\harnessdesk"

[Setup]
; A fixed AppId keeps upgrades in place; never change it.
AppId={{6F1B0C9E-3A57-4D2B-9E61-2C7A4B8F5D13}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=HarnessDesk contributors
AppPublisherURL=https://github.com/harnessdesk/harnessdesk
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
; Per-user install by default (no UAC prompt); the dialog offers all users.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir=..\..\dist
OutputBaseFilename=HarnessDesk-{#AppVersion}-setup
SetupIconFile=..\icons\harnessdesk.ico
UninstallDisplayIcon={app}\harnessdesk.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ChangesEnvironment=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "addtopath"; Description: "Add harnessdesk-cli to PATH (for doctor, serve, prompt)"; Flags: unchecked

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\{#AppName}"; Filename: "{app}\harnessdesk.exe"
Name: "{group}\{cm:UninstallProgram,{#AppName}}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\harnessdesk.exe"; Tasks: desktopicon

[Registry]
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; \
    ValueData: "{olddata};{app}"; Tasks: addtopath; Check: NeedsAddPath(ExpandConstant('{app}'))

[Run]
Filename: "{app}\harnessdesk.exe"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Only what the installer created. Sessions and settings live in %LOCALAPPDATA%\HarnessDesk
; and survive an uninstall on purpose.
Type: filesandordirs; Name: "{app}\_internal"

[Code]
function NeedsAddPath(Dir: string): Boolean;
var
  Paths: string;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Paths) then
  begin
    Result := True;
    exit;
  end;
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Paths) + ';') = 0;
end;
