import SwiftUI
import SkillTestUI

@main
struct SkillTestApp: App {
    var body: some Scene {
        WindowGroup {
            SkillTestView()
        }
    }
}
