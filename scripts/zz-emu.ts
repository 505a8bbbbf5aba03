import { startKeepEmulator } from "../emulator/keep";
(async () => { const emu = await startKeepEmulator(); console.log(JSON.stringify({ url: emu.url, token: emu.rootToken })); })();
