import { createApp } from 'vue'
import App from './App.vue'
import { router } from './router'
import { applyTheme, initRefresh } from './state'
import { lang, setLang } from './i18n'
import './styles.css'

applyTheme()
setLang(lang.value)
void initRefresh()
createApp(App).use(router).mount('#app')
